// StartCampaign, PendingActivities and the small shared helpers; Decide is in
// decide.cpp.
#include "workflows/campaign.hpp"

#include "workflows/activity_id.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/sha256.hpp"
#include "workflows/budget.hpp"
#include "workflows/memory_bank.hpp"
#include "workflows/parse.hpp"
#include "workflows/prompts.hpp"

namespace accelopt::workflows {

std::string IterationPrefix(const std::string& campaign_id, int problem, int iteration) {
  return activity_id::Iteration(campaign_id, problem, iteration);
}

std::string MemoryBankOf(const CampaignState& state) {
  if (state.spec.memory.scope == kScopeBank) return state.spec.memory.bank;
  if (state.spec.memory.scope == kScopeCampaign) return "campaign-" + state.campaign_id;
  return "";
}

const BeamPolicy& BeamPolicyFor(const std::string& mode) {
  static const PaperBeamPolicy kPaper;
  static const DefaultBeamPolicy kDefault;
  if (mode == kModePaper) return kPaper;
  return kDefault;
}

const MemoryPolicy& MemoryPolicyFor(const std::string& mode) {
  static const PaperMemoryPolicy kPaper;
  static const DefaultMemoryPolicy kDefault;
  if (mode == kModePaper) return kPaper;
  return kDefault;
}

std::vector<Group> BuildGroups(const CampaignSpec& spec, const IterationState& it) {
  std::vector<Group> groups;
  for (size_t b = 0; b < it.beam.size(); ++b) {
    const BeamMember& m = it.beam[b];
    for (int n = 0; n < spec.search.N; ++n) {
      Group g;
      g.parent_index = static_cast<int>(b);
      g.parent_beam_id = m.beam_id;
      g.parent_source_sha256 = m.source_sha256;
      g.parent_latency_us = m.latency_us();
      g.parent_spread = m.spread();
      g.parent_normalized_sha256 = m.normalized_sha256;
      g.parent_failed = m.measured && !m.measurement.correct;
      g.parent_contended = m.measured && m.measurement.contended;
      g.plan_index = n;
      g.plan_id = activity_id::Plan(activity_id::IterationPrefixOf(m.beam_id), static_cast<int>(b), n);
      for (int k = 0; k < spec.search.K; ++k) {
        const CandidateRecord& c = it.candidates[CandidateIndex(spec, static_cast<int>(b), n, k)];
        if (!c.proposed) continue;
        Sample s;
        s.candidate_id = c.id;
        s.source_sha256 = c.source_sha256;
        s.evaluated = c.ok && c.evaluated;
        s.correct = c.ok && c.evaluated && c.measurement.correct;
        s.latency_us = c.measurement.latency_us;
        s.spread = c.measurement.spread;
        s.contended = c.measurement.contended;
        s.normalized_sha256 = c.normalized_sha256;
        g.samples.push_back(std::move(s));
      }
      groups.push_back(std::move(g));
    }
  }
  return groups;
}

std::optional<int64_t> WallDeadlineUs(const CampaignState& state) {
  if (!state.started || !state.spec.budget.max_wall_s) return std::nullopt;
  return state.started_at_us + static_cast<int64_t>(*state.spec.budget.max_wall_s * 1e6);
}

Result<Command> StartCampaign(const std::string& campaign_id, const CampaignSpec& spec,
                              const std::vector<ProblemSource>& sources, const json& hardware,
                              const ModelCheck& check_model) {
  if (campaign_id.empty()) return InvalidArgument("campaign id is empty");
  for (char c : campaign_id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return InvalidArgument("campaign id '" + campaign_id + "' may only hold letters, digits, '.', '_' and '-'");
    }
  }
  ACCELOPT_RETURN_IF_ERROR(Validate(spec, check_model));
  if (spec.memory.scope == kScopeCampaign) {
    Status st = ValidateBankName("campaign-" + campaign_id);
    if (!st.ok()) return InvalidArgument("memory.scope \"campaign\": " + st.message());
  }
  if (!hardware.is_object()) return InvalidArgument("hardware facts must be a JSON object");

  Command cmd;
  json problems = json::array();
  std::set<std::string> blob_hashes;
  auto add_blob = [&](const std::string& text) {
    std::string h = Sha256Hex(text);
    if (blob_hashes.insert(h).second) cmd.blobs.push_back({h, text});
    return h;
  };
  std::vector<ProblemInfo> infos;
  for (const std::string& id : spec.problems) {
    const ProblemSource* src = nullptr;
    for (const auto& s : sources) {
      if (s.id == id) src = &s;
    }
    if (!src) return NotFound("unknown problem '" + id + "'");
    ACCELOPT_ASSIGN_OR_RETURN(ProblemInfo info, DescribeProblem(*src));
    if (!DefinesKernelFunction(src->baseline, info.function, info.backend)) {
      return InvalidArgument("problem '" + id + "': the baseline does not define " +
                             KernelFunctionDescription(info.function, info.backend));
    }
    add_blob(src->reference);
    add_blob(src->baseline);
    problems.push_back(ToJson(info));
    infos.push_back(std::move(info));
  }

  // The budget must cover the first steps, or nothing useful can run.
  const BudgetSpec& b = spec.budget;
  const int64_t n_problems = static_cast<int64_t>(spec.problems.size());
  if (b.max_evaluations && *b.max_evaluations < n_problems) {
    return ResourceExhausted("budget.max_evaluations (" + std::to_string(*b.max_evaluations) +
                             ") does not cover the baseline measurement of each of the " + std::to_string(n_problems) +
                             " problems");
  }
  {
    const ProblemSource* src = nullptr;
    for (const auto& s : sources) {
      if (s.id == spec.problems.front()) src = &s;
    }
    KernelContext ctx{infos.front(), hardware, src->reference, src->baseline};
    Rng rng(spec.seed, "start");
    ChatPrompt first = PlannerPrompt(ctx, json::object(), {}, rng);
    BudgetLedger empty;
    Amounts need = LlmReservation(spec.planner, first.bytes());
    if (auto blocked = empty.Blocks(b, need)) {
      return ResourceExhausted(
          "the budget is spent before anything runs: the first planner "
          "call alone needs " +
          Dump(ToJson(need)) + " and crosses the " + *blocked + " cap");
    }
  }

  cmd.event.type = event_type::kCampaignStarted;
  cmd.event.data = {
      {"campaign_id", campaign_id}, {"spec", ToJson(spec)}, {"problems", problems}, {"hardware", hardware}};
  return cmd;
}

Result<std::vector<ActivityRequest>> PendingActivities(const CampaignState& state, const BlobSource& blobs) {
  std::vector<const ActivityRecord*> pending;
  if (state.finished()) return std::vector<ActivityRequest>{};
  for (const auto& [id, a] : state.activities) {
    if (a.status == ActivityStatus::kScheduled) pending.push_back(&a);
  }
  std::sort(pending.begin(), pending.end(),
            [](const ActivityRecord* x, const ActivityRecord* y) { return x->seq < y->seq; });
  std::vector<ActivityRequest> out;
  for (const ActivityRecord* a : pending) {
    ActivityRequest r;
    r.activity_id = a->id;
    r.kind = a->kind;
    r.role = a->role;
    r.request = a->payload;
    auto fetch = [&](const char* hash_key, const char* text_key) -> Status {
      const std::string h = a->payload.at(hash_key).get<std::string>();
      std::optional<std::string> text = blobs.Get(h);
      if (!text) return Corruption("blob " + h + " of activity " + a->id + " is missing");
      r.request.erase(hash_key);
      r.request[text_key] = std::move(*text);
      return Status::Ok();
    };
    if (a->kind == ActivityKind::kLlm) {
      ACCELOPT_RETURN_IF_ERROR(fetch("system_sha256", "system"));
      ACCELOPT_RETURN_IF_ERROR(fetch("user_sha256", "user"));
      r.request.erase("prompt_bytes");
    } else if (a->kind == ActivityKind::kEvaluation) {
      ACCELOPT_RETURN_IF_ERROR(fetch("source_sha256", "source"));
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace accelopt::workflows
