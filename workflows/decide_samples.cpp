#include "workflows/decide_samples.hpp"

#include <map>
#include <string_view>

#include "base/sha256.hpp"
#include "workflows/activity_id.hpp"
#include "workflows/normalize.hpp"
#include "workflows/parse.hpp"
#include "workflows/prompts.hpp"
#include "workflows/eval_vocabulary.hpp"

namespace accelopt::workflows {

bool FixDue(const CandidateRecord& c, int fix_attempts) {
  return c.ok && c.evaluated && c.attempt < fix_attempts && FixableResult(c.measurement);
}

namespace {

json SampleIndices(int b, int n, int k) { return {{"beam", b}, {"plan", n}, {"sample", k}}; }

// The texts a prompt of a beam member shows: the problem's reference and
// the member's kernel (KernelContext holds views into them).
struct PromptTexts {
  std::string reference, kernel;
};

// The plans and samples of one iteration, for one round.
class SampleLoop {
 public:
  SampleLoop(Round& round, int p, int i)
      : r_(round),
        p_(p),
        i_(i),
        pre_(round.Prefix(p, i)),
        it_(round.It(p, i)),
        dedup_(round.rules().dedup_evaluations),
        fixes_(round.rules().fix_attempts) {}

  Status Run(bool memory_ready);

 private:
  const CampaignSpec& spec() const { return r_.spec(); }
  const ProblemState& problem() const { return r_.Problem(p_); }

  Result<PromptTexts> Texts(int b) const;
  KernelContext Context(const PromptTexts& t) const {
    return {problem().info, r_.state().hardware, t.reference, t.kernel, r_.rules().prompts};
  }

  Status SchedulePlanner(int b, int n);
  Status ProposePlan(int b, int n);
  Status ScheduleExecutor(int b, int n, int k);
  Status ProposeCandidate(int b, int n, int k);
  Status StepProposed(int b, int n, int k, bool may_decide);
  Result<std::string> FindReuse(const CandidateRecord& c, bool* wait) const;
  Status ScheduleFix(int b, int n, int k);
  Status ProposeFix(int b, int n, int k);
  Status ProposeCode(const char* type, const ActivityRecord& a, json d);
  void RecordFirstVersion(const CandidateRecord& c, int idx);

  Round& r_;
  const int p_, i_;
  const std::string pre_;
  const IterationState& it_;
  const bool dedup_;
  const int fixes_;
  // dedup: normalized code -> the first sample whose first version has it
  // (views into the state).
  std::map<std::string_view, int> first_v0_;
};

Status SampleLoop::Run(bool memory_ready) {
  const int width = static_cast<int>(it_.beam.size());
  bool lower_known = true;  // every sample before this one has its first version
  for (int b = 0; b < width; ++b) {
    for (int n = 0; n < spec().search.N; ++n) {
      const PlanRecord& plan = it_.plans[PlanIndex(spec(), b, n)];
      if (!plan.proposed && !r_.rules().ask_planner) {  // "sampling": the fixed plan
        if (it_.beam[b].measured) {
          ACCELOPT_RETURN_IF_ERROR(
              r_.EmitEvent(event_type::kPlanProposed, {{"problem", p_},
                                                       {"iteration", i_},
                                                       {"beam", b},
                                                       {"plan", n},
                                                       {"activity_id", ""},
                                                       {"ok", true},
                                                       {"title", kSamplingPlanTitle},
                                                       {"description", kSamplingPlanDescription}}));
        }
        lower_known = false;
        continue;
      }
      if (!plan.scheduled && !plan.proposed) {
        if (it_.beam[b].measured && memory_ready) ACCELOPT_RETURN_IF_ERROR(SchedulePlanner(b, n));
        lower_known = false;
        continue;
      }
      if (!plan.proposed) {
        if (plan.call_done) ACCELOPT_RETURN_IF_ERROR(ProposePlan(b, n));
        lower_known = false;
        continue;
      }
      if (!plan.ok) continue;
      for (int k = 0; k < spec().search.K; ++k) {
        const int idx = CandidateIndex(spec(), b, n, k);
        const CandidateRecord& c = it_.candidates[idx];
        const bool settled = c.proposed && (!c.ok || (c.evaluated && !FixDue(c, fixes_)));
        // Waiting (in flight, or on the samples before it): nothing to build.
        const bool waiting = c.exec_scheduled && (c.proposed ? (c.eval_scheduled && !c.evaluated) ||
                                                                   (!c.evaluated && dedup_ && !lower_known) ||
                                                                   (c.fix_scheduled && !c.fix_done)
                                                             : !c.exec_done);
        if (settled || waiting) {
          if (!c.proposed) lower_known = false;  // (a settled sample is proposed)
          RecordFirstVersion(c, idx);
          continue;
        }
        if (!c.exec_scheduled || !c.proposed) {
          ACCELOPT_RETURN_IF_ERROR(!c.exec_scheduled ? ScheduleExecutor(b, n, k) : ProposeCandidate(b, n, k));
          lower_known = false;
          continue;
        }
        ACCELOPT_RETURN_IF_ERROR(StepProposed(b, n, k, lower_known));
        RecordFirstVersion(c, idx);
      }
    }
  }
  return Status::Ok();
}

void SampleLoop::RecordFirstVersion(const CandidateRecord& c, int idx) {
  if (!dedup_) return;
  const bool v0_ok = c.versions.empty() ? c.ok : c.versions[0].ok;
  const std::string& v0_norm = c.versions.empty() ? c.normalized_sha256 : c.versions[0].normalized_sha256;
  if (v0_ok && !v0_norm.empty()) first_v0_.emplace(v0_norm, idx);
}

Result<PromptTexts> SampleLoop::Texts(int b) const {
  PromptTexts t;
  ACCELOPT_ASSIGN_OR_RETURN(t.reference, r_.Text(problem().info.reference_sha256));
  ACCELOPT_ASSIGN_OR_RETURN(t.kernel, r_.Text(it_.beam[b].source_sha256));
  return t;
}

Status SampleLoop::SchedulePlanner(int b, int n) {
  const std::string plan_id = activity_id::Plan(pre_, b, n);
  const BeamMember& member = it_.beam[b];
  ACCELOPT_ASSIGN_OR_RETURN(PromptTexts texts, Texts(b));
  // paper: the profile is shuffled once per beam member (all N planner
  // calls of a member see one prompt), as published; default: per plan.
  Rng rng(spec().seed, r_.rules().shuffle_profile_per_plan ? plan_id : activity_id::ProfileShuffleKey(member.beam_id));
  // "No optimization found" items take capacity but are never shown.
  std::vector<MemoryItem> shown;
  for (const MemoryItem& m : problem().memory) {
    if (!m.no_optimization) shown.push_back(m);
  }
  // paper: the published profile shows the latency in ms (prompts.hpp).
  const json profile = r_.rules().prompts == PromptMode::kPaper
                           ? WithPaperLatency(member.measurement.profile, member.measurement.latency_us)
                           : member.measurement.profile;
  ChatPrompt prompt = PlannerPrompt(Context(texts), profile, shown, rng, r_.rules().planner_names_experiences);
  return r_.ScheduleLlm(plan_id, kRolePlanner, kPurposePlan, p_, i_, {{"beam", b}, {"plan", n}}, prompt);
}

Status SampleLoop::ProposePlan(int b, int n) {
  const std::string plan_id = activity_id::Plan(pre_, b, n);
  ACCELOPT_ASSIGN_OR_RETURN(const ActivityRecord* a, r_.Activity(plan_id));
  json d = {{"problem", p_}, {"iteration", i_}, {"beam", b}, {"plan", n}, {"activity_id", plan_id}};
  // A plan cut at max_tokens is still a plan (its text up to the cut).
  const std::string partial = a->completion.value("partial_sha256", "");
  if (a->status != ActivityStatus::kCompleted && partial.empty()) {
    d["ok"] = false;
    d["error"] = std::string(kLlmFailed) + ": " + a->completion.value("error", "");
    return r_.EmitEvent(event_type::kPlanProposed, std::move(d));
  }
  if (a->status != ActivityStatus::kCompleted) d["cut_at_max_tokens"] = true;
  ACCELOPT_ASSIGN_OR_RETURN(std::string reply,
                            r_.Text(a->status == ActivityStatus::kCompleted ? a->response_sha256 : partial));
  if (r_.rules().planner_names_experiences) {
    // The experiences it names, as memory item ids (the memory has not
    // changed since the planner was scheduled: it changes only between
    // iterations).
    const auto& memory = problem().memory;
    json used = json::array();
    for (int number : ExtractUsedExperiences(&reply)) {
      if (number >= 1 && number <= static_cast<int>(memory.size())) {
        used.push_back(memory[number - 1].id);
      }
    }
    d["used_experiences"] = used;
  }
  auto plan = ParsePlannerReply(reply);
  d["ok"] = plan.ok();
  if (plan.ok()) {
    d["title"] = plan->title;
    d["description"] = plan->description;
  } else {
    d["error"] = plan.status().message();
  }
  return r_.EmitEvent(event_type::kPlanProposed, std::move(d));
}

Status SampleLoop::ScheduleExecutor(int b, int n, int k) {
  const PlanRecord& plan = it_.plans[PlanIndex(spec(), b, n)];
  ACCELOPT_ASSIGN_OR_RETURN(PromptTexts texts, Texts(b));
  ChatPrompt prompt = ExecutorPrompt(Context(texts), Plan{plan.title, plan.description});
  return r_.ScheduleLlm(activity_id::Execute(pre_, activity_id::SampleSuffix(b, n, k)), kRoleExecutor, kPurposeExecute,
                        p_, i_, SampleIndices(b, n, k), prompt);
}

Status SampleLoop::ProposeCandidate(int b, int n, int k) {
  const std::string nk = activity_id::SampleSuffix(b, n, k);
  const std::string exec_id = activity_id::Execute(pre_, nk);
  ACCELOPT_ASSIGN_OR_RETURN(const ActivityRecord* a, r_.Activity(exec_id));
  json d = SampleIndices(b, n, k);
  d.update({{"problem", p_},
            {"iteration", i_},
            {"candidate_id", activity_id::Candidate(pre_, nk)},
            {"executor_activity", exec_id}});
  return ProposeCode(event_type::kCandidateProposed, *a, std::move(d));
}

// One step of a proposed sample: evaluate (or reuse), then fix.
// may_decide: every sample before it has its first version (dedup).
Status SampleLoop::StepProposed(int b, int n, int k, bool may_decide) {
  const CandidateRecord& c = it_.candidates[CandidateIndex(spec(), b, n, k)];
  if (!c.ok) return Status::Ok();  // no usable code: settled
  if (c.evaluated) {
    if (!FixDue(c, fixes_)) return Status::Ok();
    if (!c.fix_scheduled) return ScheduleFix(b, n, k);
    if (c.fix_done) return ProposeFix(b, n, k);
    return Status::Ok();
  }
  if (c.eval_scheduled) return Status::Ok();  // in flight
  if (r_.rules().skip_after_timeout && c.attempt == 0) {
    // paper: one sample of the plan after another; none after a timeout.
    for (int j = 0; j < k; ++j) {
      const CandidateRecord& before = it_.candidates[CandidateIndex(spec(), b, n, j)];
      if (!before.proposed || (before.ok && !before.evaluated)) return Status::Ok();  // wait
      if (before.ok && before.evaluated && before.measurement.status == eval_vocab::kTimeout) {
        json d = SampleIndices(b, n, k);
        d.update({{"problem", p_},
                  {"iteration", i_},
                  {"attempt", c.attempt},
                  {"candidate_id", c.id},
                  {"timed_out", before.id}});
        return r_.EmitEvent(event_type::kEvaluationSkipped, std::move(d));
      }
    }
  }
  const std::string eval_id = activity_id::Evaluate(pre_, activity_id::SampleSuffix(b, n, k), c.attempt);
  json indices = SampleIndices(b, n, k);
  if (c.attempt > 0) indices["attempt"] = c.attempt;
  if (!dedup_ || c.normalized_sha256.empty()) {
    return r_.ScheduleEvaluation(eval_id, kPurposeEvaluate, p_, i_, indices, c.source_sha256);
  }
  if (!may_decide) return Status::Ok();  // a sample before it is not known yet
  bool wait = false;
  ACCELOPT_ASSIGN_OR_RETURN(std::string reuse, FindReuse(c, &wait));
  if (wait) return Status::Ok();
  if (reuse.empty()) {
    return r_.ScheduleEvaluation(eval_id, kPurposeEvaluate, p_, i_, indices, c.source_sha256);
  }
  json d = {{"problem", p_},
            {"iteration", i_},
            {"beam", b},
            {"plan", n},
            {"sample", k},
            {"attempt", c.attempt},
            {"candidate_id", c.id},
            {"reused_activity", reuse},
            {"normalized_sha256", c.normalized_sha256}};
  return r_.EmitEvent(event_type::kEvaluationReused, std::move(d));
}

// The evaluation whose result c's code takes (dedup, in the order of
// decide_samples.hpp), "" when none; *wait when the first sample with the
// same code is not evaluated yet.
Result<std::string> SampleLoop::FindReuse(const CandidateRecord& c, bool* wait) const {
  const std::string& norm = c.normalized_sha256;
  for (const CandidateVersion& v : c.versions) {
    if (v.ok && v.evaluated && v.normalized_sha256 == norm && ReusableResult(v.measurement)) {
      return v.eval_activity;
    }
  }
  for (size_t m = 0; m < it_.beam.size(); ++m) {
    const BeamMember& member = it_.beam[m];
    if (member.normalized_sha256 == norm && member.measured && ReusableResult(member.measurement)) {
      return activity_id::Measure(pre_, static_cast<int>(m));
    }
  }
  if (auto owner = first_v0_.find(norm); owner != first_v0_.end()) {
    const CandidateRecord& o = it_.candidates[owner->second];
    const bool o_evaluated = o.versions.empty() ? o.evaluated : o.versions[0].evaluated;
    if (!o_evaluated) {  // wait for its result
      *wait = true;
      return std::string();
    }
    const Measurement& om = o.versions.empty() ? o.measurement : o.versions[0].measurement;
    if (ReusableResult(om)) return o.versions.empty() ? o.eval_activity : o.versions[0].eval_activity;
  }
  const auto& known = problem().evaluated_code;
  if (auto found = known.find(norm); found != known.end()) return found->second;
  return std::string();
}

Status SampleLoop::ScheduleFix(int b, int n, int k) {
  const CandidateRecord& c = it_.candidates[CandidateIndex(spec(), b, n, k)];
  const PlanRecord& plan = it_.plans[PlanIndex(spec(), b, n)];
  const int f = c.attempt + 1;
  ACCELOPT_ASSIGN_OR_RETURN(PromptTexts texts, Texts(b));
  ACCELOPT_ASSIGN_OR_RETURN(std::string failed, r_.Text(c.source_sha256));
  std::string error;
  if (auto a = r_.state().activities.find(c.eval_activity); a != r_.state().activities.end()) {
    const json& result = a->second.completion.value("result", json::object());
    if (result.is_object() && result.contains("error_text") && result["error_text"].is_string()) {
      error = result["error_text"].get<std::string>();
    }
  }
  ChatPrompt prompt = FixPrompt(Context(texts), Plan{plan.title, plan.description}, failed, c.measurement.status,
                                c.measurement.reason, error);
  json indices = SampleIndices(b, n, k);
  indices["attempt"] = f;
  return r_.ScheduleLlm(activity_id::Fix(pre_, activity_id::SampleSuffix(b, n, k), f), kRoleExecutor, kPurposeFix, p_,
                        i_, indices, prompt);
}

Status SampleLoop::ProposeFix(int b, int n, int k) {
  const CandidateRecord& c = it_.candidates[CandidateIndex(spec(), b, n, k)];
  const int f = c.attempt + 1;
  const std::string fix_id = activity_id::Fix(pre_, activity_id::SampleSuffix(b, n, k), f);
  ACCELOPT_ASSIGN_OR_RETURN(const ActivityRecord* a, r_.Activity(fix_id));
  json d = SampleIndices(b, n, k);
  d.update({{"problem", p_}, {"iteration", i_}, {"attempt", f}, {"candidate_id", c.id}, {"fix_activity", fix_id}});
  return ProposeCode(event_type::kFixProposed, *a, std::move(d));
}

// Emits the proposal `type` with `d` and ok/failure/detail/source_sha256
// (and normalized_sha256 when evaluations are de-duplicated) from an
// executor-role activity, with the code as a blob.
Status SampleLoop::ProposeCode(const char* type, const ActivityRecord& a, json d) {
  std::string code_text;
  const std::string partial = a.completion.value("partial_sha256", "");
  if (a.status != ActivityStatus::kCompleted && !partial.empty()) {
    // Cut at max_tokens: a whole kernel before the cut is used; otherwise
    // the failure says what the cut left (an unclosed block, or no code).
    ACCELOPT_ASSIGN_OR_RETURN(std::string reply, r_.Text(partial));
    ParsedCode code =
        ParseExecutorReply(reply, problem().info.function, problem().info.backend, r_.rules().first_code_block_only);
    const std::string cut = "reply cut at max_tokens";
    // Cut inside the block, after the kernel function's body began: the
    // block up to the cut is evaluated (default mode), so the compiler says
    // what is missing and the fixer gets its words.
    const bool cut_kernel = code.failure == kTruncatedCode && !r_.rules().first_code_block_only &&
                            DefinesKernelFunction(code.code, problem().info.function, problem().info.backend);
    if (code.ok() || cut_kernel) {
      d["ok"] = true;
      d["failure"] = "";
      d["detail"] = cut_kernel ? cut + " inside its code block: the block up to the cut is evaluated"
                               : cut + (code.detail.empty() ? "" : "; " + code.detail);
      code_text = std::move(code.code);
    } else {
      d["ok"] = false;
      d["failure"] = code.failure == kTruncatedCode ? kTruncatedCode : kLlmFailed;
      d["detail"] = a.completion.value("error", "") + "; " + code.detail;
    }
  } else if (a.status != ActivityStatus::kCompleted) {
    d["ok"] = false;
    d["failure"] = kLlmFailed;
    d["detail"] = a.completion.value("error", "");
  } else {
    ACCELOPT_ASSIGN_OR_RETURN(std::string reply, r_.Text(a.response_sha256));
    ParsedCode code =
        ParseExecutorReply(reply, problem().info.function, problem().info.backend, r_.rules().first_code_block_only);
    if (code.failure == kMissingFunction && r_.rules().evaluate_missing_function) {
      // paper: the published judge compiles it and fails (mode_rules.hpp).
      code.failure.clear();
      code.detail += " (evaluated anyway, as published)";
    }
    d["ok"] = code.ok();
    d["failure"] = code.failure;
    d["detail"] = code.detail;
    code_text = std::move(code.code);
  }
  Command c;
  d["source_sha256"] = "";
  if (dedup_) d["normalized_sha256"] = "";
  if (!code_text.empty()) {
    const std::string h = Sha256Hex(code_text);
    d["source_sha256"] = h;
    if (dedup_) d["normalized_sha256"] = NormalizedKernelSha256(code_text, problem().info.backend);
    c.blobs.push_back({h, std::move(code_text)});
  }
  c.event.type = type;
  c.event.data = std::move(d);
  r_.Emit(std::move(c));
  return Status::Ok();
}

}  // namespace

Status StepSamples(Round& round, int p, int i, bool memory_ready) { return SampleLoop(round, p, i).Run(memory_ready); }

}  // namespace accelopt::workflows
