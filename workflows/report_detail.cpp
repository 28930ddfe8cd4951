#include "workflows/report_detail.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "workflows/activity_id.hpp"
#include "workflows/report.hpp"

namespace accelopt::workflows {

namespace {

json OrNull(double v, bool known) { return known ? json(v) : json(nullptr); }

// A measurement with its ~95% interval (spread = relative half-width).
json MeasurementJson(const std::string& id, const char* what, const Measurement& m, bool remeasured) {
  const bool lat = m.correct && m.latency_us > 0;
  const bool pct = lat && m.percent_of_peak > 0;
  const double s = std::clamp(m.spread, 0.0, 0.99);
  return {{"id", id},
          {"what", what},
          {"correct", m.correct},
          {"status", m.status},
          {"latency_us", OrNull(m.latency_us, lat)},
          {"spread", m.spread},
          {"latency_low_us", OrNull(m.latency_us * (1 - s), lat)},
          {"latency_high_us", OrNull(m.latency_us * (1 + s), lat)},
          {"percent_of_peak", OrNull(m.percent_of_peak, pct)},
          {"percent_low", OrNull(m.percent_of_peak / (1 + s), pct)},
          {"percent_high", OrNull(m.percent_of_peak / (1 - s), pct)},
          {"remeasured", remeasured}};
}

double Number(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

json Trace(const ProblemState& ps, const json& report_problem) {
  const double flops = Number(ps.info.problem, "flops"), bytes = Number(ps.info.problem, "bytes");
  const json by_iteration = report_problem.value("percent_of_peak_by_iteration", json::array());
  json trace = json::array();
  bool have = false;
  double best_latency = 0;
  std::string best_id;
  const bool baseline_ok = !ps.iterations.empty() && !ps.iterations[0].beam.empty() &&
                           ps.iterations[0].beam[0].measured && ps.iterations[0].beam[0].measurement.correct;
  auto offer = [&](const std::string& id, const Measurement& m) {
    if (!m.correct || (have && !(m.latency_us < best_latency))) return;
    have = true;
    best_latency = m.latency_us;
    best_id = id;
  };
  for (size_t i = 0; i < ps.iterations.size(); ++i) {
    const IterationState& it = ps.iterations[i];
    json ms = json::array();
    for (const BeamMember& b : it.beam) {
      if (!b.measured) continue;
      ms.push_back(MeasurementJson(b.beam_id, "beam", b.measurement, it.iteration > 0));
      if (it.iteration == 0 && baseline_ok) offer("baseline", b.measurement);
    }
    for (const CandidateRecord& c : it.candidates) {
      if (!c.proposed || !c.ok || !c.evaluated) continue;
      ms.push_back(MeasurementJson(c.id, "candidate", c.measurement, false));
      if (baseline_ok) offer(c.id, c.measurement);
    }
    if (i + 1 == ps.iterations.size() && ps.final_best.measured)
      ms.push_back(MeasurementJson(ps.final_best.activity_id, "final", ps.final_best.measurement, true));
    trace.push_back({{"iteration", it.iteration},
                     {"best_latency_us", OrNull(best_latency, have)},
                     {"best_percent_of_peak", i < by_iteration.size() ? by_iteration[i] : json(nullptr)},
                     {"best_candidate_id", have ? json(best_id) : json(nullptr)},
                     {"gflops", OrNull(flops / best_latency / 1e3, have && flops > 0)},
                     {"gbs", OrNull(bytes / best_latency / 1e3, have && bytes > 0)},
                     {"measurements", ms}});
  }
  return trace;
}

// Candidate id -> the beam member (iteration, beam index) it was rewritten from.
struct Lineage {
  json rows = json::array();
  std::map<std::string, std::string> parent_origin;  // candidate id -> its parent member's origin
};

Lineage BuildLineage(const CampaignSpec& spec, const ProblemState& ps) {
  Lineage l;
  std::set<std::string> selected;  // candidate ids whose code entered a later beam
  for (const IterationState& it : ps.iterations)
    for (const BeamMember& b : it.beam)
      if (!b.standin) selected.insert(b.origin);
  const int N = std::max(1, spec.search.N), K = std::max(1, spec.search.K);
  for (const IterationState& it : ps.iterations) {
    for (size_t idx = 0; idx < it.candidates.size(); ++idx) {
      const CandidateRecord& c = it.candidates[idx];
      if (!c.proposed) continue;
      const size_t plan_index = idx / K, beam_index = plan_index / N;
      const BeamMember* parent = beam_index < it.beam.size() ? &it.beam[beam_index] : nullptr;
      const PlanRecord* plan = plan_index < it.plans.size() ? &it.plans[plan_index] : nullptr;
      const Measurement& m = c.measurement;
      const bool lat = c.ok && c.evaluated && m.correct && m.latency_us > 0;
      const double parent_latency = parent ? parent->latency_us() : 0;
      const std::string origin = parent ? parent->origin : "";
      l.parent_origin[c.id] = origin;
      l.rows.push_back({{"iteration", it.iteration},
                        {"candidate_id", c.id},
                        {"parent_beam_id", parent ? parent->beam_id : ""},
                        {"parent_origin", origin},
                        {"plan_title", plan ? plan->title : ""},
                        {"ok", c.ok},
                        {"failure", c.failure},
                        {"status", c.evaluated ? m.status : ""},
                        {"correct", c.ok && c.evaluated && m.correct},
                        {"latency_us", OrNull(m.latency_us, lat)},
                        {"parent_latency_us", OrNull(parent_latency, parent_latency > 0)},
                        {"speedup_over_parent", OrNull(parent_latency / m.latency_us, lat && parent_latency > 0)},
                        {"attempt", c.attempt},
                        {"selected", selected.count(c.id) > 0}});
    }
  }
  return l;
}

json BestPath(const json& report_problem, const Lineage& l) {
  json path = json::array();
  const json best = report_problem.value("best", json());
  if (!best.is_object()) return path;
  std::string id = best.value("candidate_id", "baseline");
  std::vector<std::string> ids;
  std::set<std::string> seen;
  while (id != "baseline" && !id.empty() && seen.insert(id).second) {
    ids.push_back(id);
    auto it = l.parent_origin.find(id);
    if (it == l.parent_origin.end()) break;
    id = it->second;
  }
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) path.push_back(*it);
  return path;
}

json Memory(const CampaignState& state, size_t problem_index, const ProblemState& ps) {
  std::map<std::string, int> reads;
  for (const IterationState& it : ps.iterations)
    for (const PlanRecord& p : it.plans)
      for (const std::string& id : p.used_experiences) ++reads[id];
  const std::string mine = activity_id::Problem(state.campaign_id, static_cast<int>(problem_index)) + "/";
  json items = json::array();
  std::set<std::string> listed;
  for (const MemoryItem& m : ps.memory) {
    listed.insert(m.id);
    items.push_back({{"id", m.id},
                     {"title", m.title},
                     {"kind", m.kind},
                     {"credit", m.credit},
                     {"iteration", m.iteration},
                     {"written", m.id.rfind(mine, 0) == 0},
                     {"reads", reads.count(m.id) ? reads[m.id] : 0},
                     {"no_optimization", m.no_optimization},
                     {"known", true}});
  }
  for (const auto& [id, n] : reads) {
    if (listed.count(id)) continue;
    items.push_back({{"id", id},
                     {"title", ""},
                     {"kind", ""},
                     {"credit", nullptr},
                     {"iteration", nullptr},
                     {"written", id.rfind(mine, 0) == 0},
                     {"reads", n},
                     {"no_optimization", false},
                     {"known", false}});
  }
  return items;
}

json LlmCalls(const CampaignState& state) {
  std::vector<const ActivityRecord*> done;
  for (const auto& [id, a] : state.activities)
    if (a.kind == ActivityKind::kLlm && a.status != ActivityStatus::kScheduled) done.push_back(&a);
  std::stable_sort(done.begin(), done.end(), [](const ActivityRecord* x, const ActivityRecord* y) {
    return x->completed_at_us != y->completed_at_us ? x->completed_at_us < y->completed_at_us : x->seq < y->seq;
  });
  json calls = json::array();
  for (const ActivityRecord* a : done) {
    const json u = a->completion.value("usage", json::object());
    const bool failed = a->status == ActivityStatus::kFailed;
    std::string source = failed ? "failed call (partial usage)" : "usage";
    if (a->completion.contains("cost_source") && a->completion["cost_source"].is_string())
      source = a->completion["cost_source"].get<std::string>();
    calls.push_back({{"activity_id", a->id},
                     {"t_s", static_cast<double>(a->completed_at_us - state.started_at_us) / 1e6},
                     {"role", a->role},
                     {"provider", a->payload.value("provider", "")},
                     {"model", a->payload.value("model", "")},
                     {"status", failed ? "failed" : "completed"},
                     {"input_tokens", u.value("input_tokens", int64_t{0})},
                     {"output_tokens", u.value("output_tokens", int64_t{0})},
                     {"cost_usd", a->completion.value("cost_usd", 0.0)},
                     {"reserved_cost_usd", a->reservation.cost_usd()},
                     {"source", source}});
  }
  return calls;
}

}  // namespace

json BuildDetailedReport(const CampaignState& state) {
  json report = BuildReport(state);
  const int64_t end = state.finished() ? state.now_us : 0;
  report["started_at_us"] = state.started_at_us;
  report["ended_at_us"] = state.finished() ? json(end) : json(nullptr);
  report["updated_at_us"] = state.now_us;
  report["duration_s"] = static_cast<double>((state.finished() ? end : state.now_us) - state.started_at_us) / 1e6;
  report["search"] = {
      {"T", state.spec.search.T}, {"B", state.spec.search.B}, {"N", state.spec.search.N}, {"K", state.spec.search.K}};
  json& problems = report["problems"];
  for (size_t i = 0; i < state.problems.size() && i < problems.size(); ++i) {
    const ProblemState& ps = state.problems[i];
    json& p = problems[i];
    const json& pj = ps.info.problem;
    p["bound"] = pj.value("bound", "");
    p["flops"] = pj.contains("flops") ? pj["flops"] : json(nullptr);
    p["bytes"] = pj.contains("bytes") ? pj["bytes"] : json(nullptr);
    p["baseline_sha256"] = ps.info.baseline_sha256;
    p["trace"] = Trace(ps, p);
    Lineage l = BuildLineage(state.spec, ps);
    p["lineage"] = std::move(l.rows);
    p["best_path"] = BestPath(p, l);
    p["memory"] = Memory(state, i, ps);
  }
  report["llm_calls"] = LlmCalls(state);
  return report;
}

}  // namespace accelopt::workflows
