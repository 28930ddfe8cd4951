#include "workflows/select.hpp"

#include "workflows/activity_id.hpp"
#include "workflows/campaign.hpp"
#include "workflows/mode_rules.hpp"
#include "workflows/normalize.hpp"

namespace accelopt::workflows {

namespace {

// A beam member's code parent as recorded (null when it has none).
json CodeParentOf(const BeamMember& m) {
  return m.has_code_parent ? json{{"beam_id", m.code_parent_beam_id},
                                  {"latency_us", m.code_parent_latency_us},
                                  {"spread", m.code_parent_spread}}
                           : json(nullptr);
}

json Baseline(const std::string& pre, const ProblemInfo& info) {
  return {{"beam_id", activity_id::BeamMember(pre, 0)},
          {"source_sha256", info.baseline_sha256},
          {"origin", "baseline"},
          {"parent_beam_id", ""},
          {"standin", false},
          {"latency_us", 0.0}};
}

// The published record of a pick.
json Member(const std::string& pre, int j, const BeamPick& pick, const Group& g) {
  return {{"beam_id", activity_id::BeamMember(pre, j)},
          {"source_sha256", pick.source_sha256},
          {"origin", pick.origin},
          {"parent_beam_id", g.parent_beam_id},
          {"standin", pick.standin},
          {"latency_us", pick.latency_us}};
}

// With lineage: a carried parent keeps its origin and code parent; a child
// names its parent as its code parent.
json MemberWithLineage(const std::string& pre, int j, const BeamPick& pick, const Group& g, const BeamMember& parent) {
  json m = {{"beam_id", activity_id::BeamMember(pre, j)},
            {"source_sha256", pick.source_sha256},
            {"normalized_sha256", pick.normalized_sha256},
            {"standin", false},
            {"carried", pick.carried},
            {"parent_beam_id", parent.beam_id},
            {"latency_us", pick.latency_us},
            {"spread", pick.spread}};
  if (pick.carried) {
    m["origin"] = parent.origin;
    m["code_parent"] = CodeParentOf(parent);
  } else {
    m["origin"] = pick.origin;
    m["code_parent"] = {{"beam_id", parent.beam_id}, {"latency_us", g.parent_latency_us}, {"spread", g.parent_spread}};
  }
  return m;
}

}  // namespace

Result<json> SelectBeamMembers(const CampaignState& state, const BlobSource& blobs, int p, int i) {
  const CampaignSpec& spec = state.spec;
  const bool lineage = ModeRulesOf(spec).beam_lineage;
  const ProblemState& ps = state.problems[p];
  const std::string pre = activity_id::Iteration(state.campaign_id, p, i);
  json members = json::array();
  if (i == 0 || ModeRulesOf(spec).restart_from_baseline) {
    json m = Baseline(pre, ps.info);
    if (lineage) {
      auto baseline = blobs.Get(ps.info.baseline_sha256);
      if (!baseline) return Corruption("blob " + ps.info.baseline_sha256 + " is missing");
      m["normalized_sha256"] = NormalizedKernelSha256(*baseline, ps.info.backend);
      m["carried"] = false;
      m["spread"] = 0.0;
      m["code_parent"] = nullptr;
    }
    members.push_back(std::move(m));
    return members;
  }
  const IterationState& prev = ps.iterations[i - 1];
  const auto groups = BuildGroups(spec, prev);
  const auto picks = BeamPolicyFor(spec.mode).Select(groups, spec.search.B);
  for (size_t j = 0; j < picks.size(); ++j) {
    const BeamPick& pick = picks[j];
    const Group& g = groups[pick.group_index];
    members.push_back(lineage ? MemberWithLineage(pre, static_cast<int>(j), pick, g, prev.beam[g.parent_index])
                              : Member(pre, static_cast<int>(j), pick, g));
  }
  return members;
}

json SelectBest(const CampaignState& state, int p, int i) {
  const CampaignSpec& spec = state.spec;
  const IterationState& it = state.problems[p].iterations[i];
  const BeamMember* best_member = nullptr;
  const CandidateRecord* best_child = nullptr;
  int child_parent = -1;
  double best = 0;
  bool any_passed = false;
  for (const BeamMember& m : it.beam) any_passed = any_passed || !(m.measured && !m.measurement.correct);
  for (const BeamMember& m : it.beam) {
    if (any_passed && m.measured && !m.measurement.correct) continue;
    if (!best_member || m.latency_us() < best) {
      best_member = &m;
      best = m.latency_us();
    }
  }
  const int per_member = spec.search.N * spec.search.K;
  // "sampling": every iteration's samples (their beam is the baseline).
  const IterationState* child_it = &it;
  const int first = ModeRulesOf(spec).best_of_all_iterations ? 0 : i;
  for (int j = first; j <= i; ++j) {
    const IterationState& from = state.problems[p].iterations[j];
    for (size_t ci = 0; ci < from.candidates.size(); ++ci) {
      const CandidateRecord& c = from.candidates[ci];
      if (!(c.ok && c.evaluated && c.measurement.correct)) continue;
      if (c.measurement.latency_us < best) {
        best_child = &c;
        child_it = &from;
        child_parent = static_cast<int>(ci) / per_member;
        best = c.measurement.latency_us;
      }
    }
  }
  json d = {{"problem", p}, {"iteration", i}};
  if (best_child) {
    const BeamMember& parent = child_it->beam[child_parent];
    d["source_sha256"] = best_child->source_sha256;
    d["origin"] = best_child->id;
    d["beam_id"] = "";
    d["latency_us"] = best_child->measurement.latency_us;
    d["spread"] = best_child->measurement.spread;
    d["parent"] = {{"beam_id", parent.beam_id}, {"latency_us", parent.latency_us()}, {"spread", parent.spread()}};
  } else {
    const BeamMember& m = *best_member;
    d["source_sha256"] = m.source_sha256;
    d["origin"] = m.origin;
    d["beam_id"] = m.beam_id;
    d["latency_us"] = m.latency_us();
    d["spread"] = m.spread();
    d["parent"] = CodeParentOf(m);
  }
  return d;
}

}  // namespace accelopt::workflows
