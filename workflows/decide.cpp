// Decide: one round of decisions, each computed from the state as given (no
// copy of the state: a campaign at paper scale holds ~10^5 activities). Every
// item (beam member, plan, candidate, pair) moves at most one step per round;
// a step that depends on another (an evaluation on its CandidateProposed)
// comes in the next round. Reservations of the round are summed in a local
// ledger so that the round as a whole keeps every cap.
#include <cctype>
#include <map>
#include <set>

#include "base/sha256.hpp"
#include "workflows/activity_id.hpp"
#include "workflows/campaign.hpp"
#include "workflows/memory_bank.hpp"
#include "workflows/normalize.hpp"
#include "workflows/parse.hpp"
#include "workflows/prompts.hpp"

namespace accelopt::workflows {

namespace {

class Decider {
 public:
  Decider(const CampaignState& state, const BlobSource& blobs)
      : st_(state), blobs_(blobs), budget_(state.budget), bank_(MemoryBankOf(state)) {}

  Result<std::vector<Command>> Run() {
    if (!st_.started || st_.finished()) return std::move(out_);
    if (auto deadline = WallDeadlineUs(st_); deadline && st_.now_us >= *deadline) {
      Exhausted(kBudgetWallTime);
      return std::move(out_);
    }
    bool all_done = true;
    for (int p = 0; p < static_cast<int>(st_.problems.size()); ++p) {
      if (st_.problems[p].status != kStatusRunning) continue;
      all_done = false;
      ACCELOPT_RETURN_IF_ERROR(StepProblem(p));
    }
    if (all_done) {
      Finish();
    } else if (out_.empty() && blocked_ && st_.in_flight == 0) {
      Exhausted(*blocked_);
    }
    return std::move(out_);
  }

 private:
  const CampaignSpec& spec() const { return st_.spec; }
  bool default_mode() const { return st_.spec.mode != kModePaper; }

  void Emit(Command c) { out_.push_back(std::move(c)); }

  Status EmitEvent(const char* type, json data) {
    Command c;
    c.event.type = type;
    c.event.data = std::move(data);
    Emit(std::move(c));
    return Status::Ok();
  }

  Result<std::string> Text(const std::string& sha256) const {
    if (auto text = blobs_.Get(sha256)) return std::move(*text);
    return Corruption("blob " + sha256 + " is missing");
  }

  // REQUIRES: the activity was scheduled (the state says its call is done).
  Result<const ActivityRecord*> Activity(const std::string& id) const {
    auto it = st_.activities.find(id);
    if (it == st_.activities.end()) return Internal("activity " + id + " is not in the state");
    return &it->second;
  }

  json Header(const std::string& id, const char* kind, const std::string& role,
              const char* purpose, int p, int i, const json& indices, const Amounts& reservation,
              const json& payload) const {
    json d = {{"activity_id", id}, {"kind", kind},     {"role", role},
              {"purpose", purpose}, {"problem", p},    {"iteration", i},
              {"reservation", ToJson(reservation)},    {"payload", payload}};
    for (const auto& [k, v] : indices.items()) d[k] = v;
    return d;
  }

  // Schedules unless the budget says no (then records why and returns Ok).
  Status ScheduleLlm(const std::string& id, const std::string& role, const char* purpose, int p,
                     int i, const json& indices, const ChatPrompt& prompt) {
    const RoleSpec& r = spec().Role(role);
    const Amounts reservation = LlmReservation(r, prompt.bytes());
    if (auto blocked = budget_.Blocks(spec().budget, reservation)) {
      if (!blocked_) blocked_ = *blocked;
      return Status::Ok();
    }
    budget_.Reserve(reservation);
    Command c;
    const std::string sys = Sha256Hex(prompt.system), user = Sha256Hex(prompt.user);
    json payload = {{"provider", r.provider},   {"model", r.model},
                    {"temperature", r.temperature}, {"max_tokens", r.max_tokens},
                    {"reasoning", r.reasoning}, {"system_sha256", sys},
                    {"user_sha256", user},      {"prompt_bytes", prompt.bytes()}};
    json request = payload;
    request.erase("system_sha256");
    request.erase("user_sha256");
    request.erase("prompt_bytes");
    request["system"] = prompt.system;
    request["user"] = prompt.user;
    c.event.type = event_type::kActivityScheduled;
    c.event.data = Header(id, "llm", role, purpose, p, i, indices, reservation, payload);
    c.blobs.push_back({sys, prompt.system});
    if (user != sys) c.blobs.push_back({user, prompt.user});
    c.run = ActivityRequest{id, ActivityKind::kLlm, role, std::move(request)};
    Emit(std::move(c));
    return Status::Ok();
  }

  // compare_sha256: optional second kernel (the problem's baseline) that the
  // evaluator times interleaved with this one (EvalRequest.compare_source).
  Status ScheduleEvaluation(const std::string& id, const char* purpose, int p, int i,
                            const json& indices, const std::string& source_sha256,
                            const std::string& compare_sha256 = "") {
    const Amounts reservation = EvaluationReservation();
    if (auto blocked = budget_.Blocks(spec().budget, reservation)) {
      if (!blocked_) blocked_ = *blocked;
      return Status::Ok();
    }
    budget_.Reserve(reservation);
    ACCELOPT_ASSIGN_OR_RETURN(std::string source, Text(source_sha256));
    const ProblemInfo& info = st_.problems[p].info;
    json payload = {{"backend", info.backend},
                    {"problem", info.id},
                    {"source_sha256", source_sha256},
                    {"settings", spec().evaluation}};
    if (!compare_sha256.empty()) payload["compare_source_sha256"] = compare_sha256;
    json request = payload;
    request.erase("source_sha256");
    request.erase("compare_source_sha256");
    request["source"] = std::move(source);
    if (!compare_sha256.empty()) {
      ACCELOPT_ASSIGN_OR_RETURN(std::string compare, Text(compare_sha256));
      request["compare_source"] = std::move(compare);
    }
    Command c;
    c.event.type = event_type::kActivityScheduled;
    c.event.data = Header(id, "evaluation", kRoleEvaluator, purpose, p, i, indices, reservation,
                          payload);
    c.run = ActivityRequest{id, ActivityKind::kEvaluation, kRoleEvaluator, std::move(request)};
    Emit(std::move(c));
    return Status::Ok();
  }

  const IterationState& It(int p, int i) const { return st_.problems[p].iterations[i]; }

  // One round for problem p: structural steps (a new iteration, the beam,
  // the memory) end the round for the problem; item steps run side by side.
  Status StepProblem(int p) {
    const ProblemState& ps = st_.problems[p];
    if (ps.iterations.empty()) {
      return EmitEvent(event_type::kIterationStarted, {{"problem", p}, {"iteration", 0}});
    }
    const int i = static_cast<int>(ps.iterations.size()) - 1;
    const IterationState& it = ps.iterations[i];
    const std::string pre = IterationPrefix(st_.campaign_id, p, i);
    const SearchParams& sp = spec().search;

    if (!it.beam_selected) return SelectBeam(p, i, pre);
    if (default_mode() && i > 0 && !it.credited) return CreditExperiences(p, i);
    if (i > 0 && !it.pairs_selected) {
      const auto groups = BuildGroups(spec(), It(p, i - 1));
      json pairs = json::array(), duplicates = json::array();
      // "default": a pair already summarized (same kind, slow and fast
      // code) in an earlier iteration, or behind an item in memory, is not
      // summarized again.
      std::set<std::string> seen;
      auto key = [](const MemoryPair& m) { return m.kind + "/" + m.slow_sha256 + "/" + m.fast_sha256; };
      if (default_mode()) {
        for (int j = 0; j < i; ++j) {
          for (const MemoryPair& m : It(p, j).pairs) seen.insert(key(m));
        }
        for (const MemoryItem& m : ps.memory) seen.insert(key(m.pair));
      }
      for (const MemoryPair& pair : MemoryPolicyFor(spec().mode).SelectPairs(groups, sp)) {
        if (default_mode() && !seen.insert(key(pair)).second) {
          duplicates.push_back({{"slow_id", pair.slow_id}, {"fast_id", pair.fast_id}, {"kind", pair.kind}});
          continue;
        }
        pairs.push_back(ToJson(pair));
      }
      json d = {{"problem", p}, {"iteration", i}, {"pairs", pairs}};
      if (default_mode()) d["duplicates"] = duplicates;
      return EmitEvent(event_type::kMemoryPairsSelected, std::move(d));
    }
    // A baseline that does not pass ends the problem.
    if (i == 0 && it.beam[0].measured && !it.beam[0].measurement.correct) {
      const Measurement& m = it.beam[0].measurement;
      return EmitEvent(event_type::kProblemCompleted,
                       {{"problem", p},
                        {"status", kStatusFailed},
                        {"reason", "the baseline did not pass: " + m.status +
                                       (m.reason.empty() ? "" : ": " + m.reason)}});
    }
    if (i > 0 && !it.memory_updated) {
      bool all_summarized = true;
      for (bool done : it.pair_done) all_summarized = all_summarized && done;
      if (all_summarized) return UpdateMemory(p, i, pre);
    }
    if (IterationDone(it)) {
      if (i + 1 < sp.T) {
        return EmitEvent(event_type::kIterationStarted, {{"problem", p}, {"iteration", i + 1}});
      }
      if (default_mode()) {
        const FinalBest& f = ps.final_best;
        if (!f.selected) return SelectBest(p, i);
        if (!f.measure_scheduled) {
          // The final best and the baseline, side by side in one run: the
          // reported speedup comes with its interval (report.cpp).
          return ScheduleEvaluation(activity_id::FinalMeasure(pre), kPurposeFinalMeasure, p, i, json::object(),
                                    f.source_sha256, ps.info.baseline_sha256);
        }
        if (!f.measured) return Status::Ok();
      }
      // A problem whose LLM calls failed, so that not one candidate was
      // evaluated, did not do its work: it fails with the provider's error.
      const std::string unserved = LlmFailureReason(p);
      return EmitEvent(event_type::kProblemCompleted,
                       {{"problem", p},
                        {"status", unserved.empty() ? kStatusCompleted : kStatusFailed},
                        {"reason", unserved}});
    }

    const int width = static_cast<int>(it.beam.size());
    // (Re-)measure the beam.
    for (int b = 0; b < width; ++b) {
      if (it.beam[b].measure_scheduled) continue;
      ACCELOPT_RETURN_IF_ERROR(ScheduleEvaluation(activity_id::Measure(pre, b),
                                                  kPurposeMeasure, p, i, {{"beam", b}},
                                                  it.beam[b].source_sha256));
    }
    // Summarize the last iteration's pairs.
    for (size_t m = 0; m < it.pairs.size(); ++m) {
      if (it.pair_scheduled[m]) continue;
      const MemoryPair& pair = it.pairs[m];
      ACCELOPT_ASSIGN_OR_RETURN(std::string slow, Text(pair.slow_sha256));
      ACCELOPT_ASSIGN_OR_RETURN(std::string fast, Text(pair.fast_sha256));
      // The published code never filled the speedup in; "paper" keeps that.
      const std::optional<double> told =
          spec().mode == kModePaper ? std::nullopt : std::optional<double>(pair.speedup);
      ChatPrompt prompt = SummarizerPrompt(ps.info, slow, fast, told);
      ACCELOPT_RETURN_IF_ERROR(ScheduleLlm(activity_id::Summarize(pre, static_cast<int>(m)), kRoleSummarizer,
                                           kPurposeSummarize, p, i,
                                           {{"pair", static_cast<int>(m)}}, prompt));
    }
    bool memory_ready = i == 0 || it.memory_updated;
    if (memory_ready && !bank_.empty()) {
      if (!it.snapshot_scheduled) ACCELOPT_RETURN_IF_ERROR(ScheduleSnapshot(p, i, pre));
      memory_ready = it.snapshot_taken;
    }
    if (default_mode() || FixAttempts(spec()) > 0) return StepSamples(p, i, pre, memory_ready);
    // Plans, executor samples, evaluations: each moves one step.
    for (int b = 0; b < width; ++b) {
      for (int n = 0; n < sp.N; ++n) {
        const PlanRecord& plan = it.plans[PlanIndex(spec(), b, n)];
        if (!plan.scheduled) {
          if (it.beam[b].measured && memory_ready) {
            ACCELOPT_RETURN_IF_ERROR(SchedulePlanner(p, i, b, n, pre));
          }
          continue;
        }
        if (!plan.proposed) {
          if (plan.call_done) ACCELOPT_RETURN_IF_ERROR(ProposePlan(p, i, b, n, pre));
          continue;
        }
        if (!plan.ok) continue;
        for (int k = 0; k < sp.K; ++k) {
          const CandidateRecord& c = it.candidates[CandidateIndex(spec(), b, n, k)];
          if (c.proposed && (!c.ok || c.eval_scheduled)) continue;  // nothing left to do
          if (c.exec_scheduled && !c.exec_done) continue;           // in flight
          const std::string nk = activity_id::SampleSuffix(b, n, k);
          const json indices = {{"beam", b}, {"plan", n}, {"sample", k}};
          if (!c.exec_scheduled) {
            ACCELOPT_RETURN_IF_ERROR(ScheduleExecutor(p, i, b, plan, activity_id::Execute(pre, nk), indices));
          } else if (!c.proposed) {
            ACCELOPT_RETURN_IF_ERROR(ProposeCandidate(p, i, pre, nk, indices));
          } else {
            ACCELOPT_RETURN_IF_ERROR(ScheduleEvaluation(activity_id::Evaluate(pre, nk, 0), kPurposeEvaluate, p,
                                                        i, indices, c.source_sha256));
          }
        }
      }
    }
    return Status::Ok();
  }

  // "default" mode (and "paper" with fix_attempts > 0): plans, samples,
  // de-duplicated evaluations and fixes; each item moves one step.
  Status StepSamples(int p, int i, const std::string& pre, bool memory_ready) {
    const IterationState& it = It(p, i);
    const SearchParams& sp = spec().search;
    const bool dedup = default_mode();
    const int width = static_cast<int>(it.beam.size());
    bool lower_known = true;  // every sample before this one has its first version
    // normalized code -> first sample index with it (views into the state)
    std::map<std::string_view, int> first_v0;
    for (int b = 0; b < width; ++b) {
      for (int n = 0; n < sp.N; ++n) {
        const PlanRecord& plan = it.plans[PlanIndex(spec(), b, n)];
        if (!plan.scheduled) {
          if (it.beam[b].measured && memory_ready) {
            ACCELOPT_RETURN_IF_ERROR(SchedulePlanner(p, i, b, n, pre));
          }
          lower_known = false;
          continue;
        }
        if (!plan.proposed) {
          if (plan.call_done) ACCELOPT_RETURN_IF_ERROR(ProposePlan(p, i, b, n, pre));
          lower_known = false;
          continue;
        }
        if (!plan.ok) continue;
        for (int k = 0; k < sp.K; ++k) {
          const int idx = CandidateIndex(spec(), b, n, k);
          const CandidateRecord& c = it.candidates[idx];
          const bool settled = c.proposed && (!c.ok || (c.evaluated && !FixDue(c)));
          if (settled) {
            RecordFirstVersion(c, idx, dedup, &first_v0);
            continue;
          }
          // Waiting (in flight, or on the samples before it): nothing to build.
          const bool waiting = c.exec_scheduled && (c.proposed ? (c.eval_scheduled && !c.evaluated) ||
                                                                     (!c.evaluated && dedup && !lower_known) ||
                                                                     (c.fix_scheduled && !c.fix_done)
                                                               : !c.exec_done);
          if (waiting) {
            if (!c.proposed) lower_known = false;
            RecordFirstVersion(c, idx, dedup, &first_v0);
            continue;
          }
          const std::string nk = activity_id::SampleSuffix(b, n, k);
          if (!c.exec_scheduled || !c.proposed) {
            const json indices = {{"beam", b}, {"plan", n}, {"sample", k}};
            if (!c.exec_scheduled) {
              ACCELOPT_RETURN_IF_ERROR(
                  ScheduleExecutor(p, i, b, plan, activity_id::Execute(pre, nk), indices));
            } else {
              ACCELOPT_RETURN_IF_ERROR(ProposeCandidate(p, i, pre, nk, indices));
            }
            lower_known = false;
            continue;
          }
          ACCELOPT_RETURN_IF_ERROR(
              StepSample(p, i, b, n, k, pre, nk, dedup && lower_known, dedup, first_v0));
          RecordFirstVersion(c, idx, dedup, &first_v0);
        }
      }
    }
    return Status::Ok();
  }

  bool FixDue(const CandidateRecord& c) const {
    return c.ok && c.evaluated && c.attempt < FixAttempts(spec()) &&
           FixableResult(c.measurement);
  }

  static void RecordFirstVersion(const CandidateRecord& c, int idx, bool dedup,
                                 std::map<std::string_view, int>* first_v0) {
    if (!dedup) return;
    const bool v0_ok = c.versions.empty() ? c.ok : c.versions[0].ok;
    const std::string& v0_norm =
        c.versions.empty() ? c.normalized_sha256 : c.versions[0].normalized_sha256;
    if (v0_ok && !v0_norm.empty()) first_v0->emplace(v0_norm, idx);
  }

  // One step of a proposed sample: evaluate (or reuse), then fix.
  Status StepSample(int p, int i, int b, int n, int k, const std::string& pre,
                    const std::string& nk, bool may_decide, bool dedup,
                    const std::map<std::string_view, int>& first_v0) {
    const IterationState& it = It(p, i);
    const CandidateRecord& c = it.candidates[CandidateIndex(spec(), b, n, k)];
    if (!c.ok) return Status::Ok();  // no usable code: settled
    json indices = {{"beam", b}, {"plan", n}, {"sample", k}};
    if (c.evaluated) {
      if (c.attempt >= FixAttempts(spec()) || !FixableResult(c.measurement)) return Status::Ok();
      if (!c.fix_scheduled) return ScheduleFix(p, i, b, n, k, pre, nk);
      if (c.fix_done) return ProposeFix(p, i, b, n, k, pre, nk);
      return Status::Ok();
    }
    if (c.eval_scheduled) return Status::Ok();  // in flight
    const std::string eval_id = activity_id::Evaluate(pre, nk, c.attempt);
    if (c.attempt > 0) indices["attempt"] = c.attempt;
    if (!dedup || c.normalized_sha256.empty()) {
      return ScheduleEvaluation(eval_id, kPurposeEvaluate, p, i, indices, c.source_sha256);
    }
    if (!may_decide) return Status::Ok();  // a sample before it is not known yet
    const std::string& norm = c.normalized_sha256;
    std::string reuse;
    for (const CandidateVersion& v : c.versions) {
      if (v.ok && v.evaluated && v.normalized_sha256 == norm && ReusableResult(v.measurement)) {
        reuse = v.eval_activity;
        break;
      }
    }
    for (size_t m = 0; reuse.empty() && m < it.beam.size(); ++m) {
      const BeamMember& member = it.beam[m];
      if (member.normalized_sha256 == norm && member.measured &&
          ReusableResult(member.measurement)) {
        reuse = activity_id::Measure(pre, static_cast<int>(m));
      }
    }
    if (reuse.empty()) {
      auto owner = first_v0.find(norm);
      if (owner != first_v0.end()) {
        const CandidateRecord& o = it.candidates[owner->second];
        const bool o_evaluated = o.versions.empty() ? o.evaluated : o.versions[0].evaluated;
        if (!o_evaluated) return Status::Ok();  // wait for its result
        const Measurement& om = o.versions.empty() ? o.measurement : o.versions[0].measurement;
        if (ReusableResult(om)) {
          reuse = o.versions.empty() ? o.eval_activity : o.versions[0].eval_activity;
        }
      }
    }
    if (reuse.empty()) {
      const auto& known = st_.problems[p].evaluated_code;
      auto found = known.find(norm);
      if (found != known.end()) reuse = found->second;
    }
    if (reuse.empty()) {
      return ScheduleEvaluation(eval_id, kPurposeEvaluate, p, i, indices, c.source_sha256);
    }
    json d = {{"problem", p},       {"iteration", i},          {"beam", b},
              {"plan", n},          {"sample", k},             {"attempt", c.attempt},
              {"candidate_id", c.id}, {"reused_activity", reuse}, {"normalized_sha256", norm}};
    return EmitEvent(event_type::kEvaluationReused, std::move(d));
  }

  Status ScheduleFix(int p, int i, int b, int n, int k, const std::string& pre,
                     const std::string& nk) {
    const IterationState& it = It(p, i);
    const ProblemState& ps = st_.problems[p];
    const CandidateRecord& c = it.candidates[CandidateIndex(spec(), b, n, k)];
    const PlanRecord& plan = it.plans[PlanIndex(spec(), b, n)];
    const int f = c.attempt + 1;
    ACCELOPT_ASSIGN_OR_RETURN(std::string reference, Text(ps.info.reference_sha256));
    ACCELOPT_ASSIGN_OR_RETURN(std::string kernel, Text(it.beam[b].source_sha256));
    ACCELOPT_ASSIGN_OR_RETURN(std::string failed, Text(c.source_sha256));
    std::string error;
    if (auto a = st_.activities.find(c.eval_activity); a != st_.activities.end()) {
      const json& result = a->second.completion.value("result", json::object());
      if (result.is_object() && result.contains("error_text") &&
          result["error_text"].is_string()) {
        error = result["error_text"].get<std::string>();
      }
    }
    KernelContext ctx{ps.info, st_.hardware, reference, kernel, PromptModeOf(spec().mode)};
    ChatPrompt prompt = FixPrompt(ctx, Plan{plan.title, plan.description}, failed,
                                  c.measurement.status, c.measurement.reason, error);
    return ScheduleLlm(activity_id::Fix(pre, nk, f), kRoleExecutor, kPurposeFix,
                       p, i, {{"beam", b}, {"plan", n}, {"sample", k}, {"attempt", f}}, prompt);
  }

  Status ProposeFix(int p, int i, int b, int n, int k, const std::string& pre,
                    const std::string& nk) {
    const CandidateRecord& c = It(p, i).candidates[CandidateIndex(spec(), b, n, k)];
    const int f = c.attempt + 1;
    const std::string fix_id = activity_id::Fix(pre, nk, f);
    ACCELOPT_ASSIGN_OR_RETURN(const ActivityRecord* a, Activity(fix_id));
    json d = {{"problem", p}, {"iteration", i},   {"beam", b},
              {"plan", n},    {"sample", k},      {"attempt", f},
              {"candidate_id", c.id}, {"fix_activity", fix_id}};
    Command cmd;
    ACCELOPT_RETURN_IF_ERROR(ReadCode(p, *a, &d, &cmd));
    cmd.event.type = event_type::kFixProposed;
    cmd.event.data = std::move(d);
    Emit(std::move(cmd));
    return Status::Ok();
  }

  // Fills ok/failure/detail/source_sha256 (and normalized_sha256 in
  // "default" mode) of a proposal from an executor-role activity, adding
  // the code blob to `cmd`.
  Status ReadCode(int p, const ActivityRecord& a, json* d, Command* cmd) {
    if (a.status != ActivityStatus::kCompleted) {
      (*d)["ok"] = false;
      (*d)["failure"] = kLlmFailed;
      (*d)["detail"] = a.completion.value("error", "");
      (*d)["source_sha256"] = "";
      if (default_mode()) (*d)["normalized_sha256"] = "";
      return Status::Ok();
    }
    ACCELOPT_ASSIGN_OR_RETURN(std::string reply, Text(a.response_sha256));
    ParsedCode code = ParseExecutorReply(reply, st_.problems[p].info.function);
    (*d)["ok"] = code.ok();
    (*d)["failure"] = code.failure;
    (*d)["detail"] = code.detail;
    if (code.code.empty()) {
      (*d)["source_sha256"] = "";
      if (default_mode()) (*d)["normalized_sha256"] = "";
    } else {
      const std::string h = Sha256Hex(code.code);
      (*d)["source_sha256"] = h;
      if (default_mode()) (*d)["normalized_sha256"] = NormalizedCodeSha256(code.code);
      cmd->blobs.push_back({h, std::move(code.code)});
    }
    return Status::Ok();
  }

  // "default" mode: the final best of problem p, from its last iteration i:
  // the fastest of the beam (re-measured) and its correct children.
  Status SelectBest(int p, int i) {
    const IterationState& it = It(p, i);
    const BeamMember* best_member = nullptr;
    const CandidateRecord* best_child = nullptr;
    int child_parent = -1;
    double best = 0;
    // A member whose re-measurement failed is not a best at an unconfirmed
    // latency (unless every member failed; the report then stands back).
    bool any_passed = false;
    for (const BeamMember& m : it.beam) any_passed = any_passed || !(m.measured && !m.measurement.correct);
    for (const BeamMember& m : it.beam) {
      if (any_passed && m.measured && !m.measurement.correct) continue;
      if (!best_member || m.latency_us() < best) {
        best_member = &m;
        best = m.latency_us();
      }
    }
    const int per_member = spec().search.N * spec().search.K;
    for (size_t ci = 0; ci < it.candidates.size(); ++ci) {
      const CandidateRecord& c = it.candidates[ci];
      if (!(c.ok && c.evaluated && c.measurement.correct)) continue;
      if (c.measurement.latency_us < best) {
        best_child = &c;
        child_parent = static_cast<int>(ci) / per_member;
        best = c.measurement.latency_us;
      }
    }
    json d = {{"problem", p}, {"iteration", i}};
    if (best_child) {
      const BeamMember& parent = it.beam[child_parent];
      d["source_sha256"] = best_child->source_sha256;
      d["origin"] = best_child->id;
      d["beam_id"] = "";
      d["latency_us"] = best_child->measurement.latency_us;
      d["spread"] = best_child->measurement.spread;
      d["parent"] = {{"beam_id", parent.beam_id},
                     {"latency_us", parent.latency_us()},
                     {"spread", parent.spread()}};
    } else {
      const BeamMember& m = *best_member;
      d["source_sha256"] = m.source_sha256;
      d["origin"] = m.origin;
      d["beam_id"] = m.beam_id;
      d["latency_us"] = m.latency_us();
      d["spread"] = m.spread();
      d["parent"] = m.has_code_parent ? json{{"beam_id", m.code_parent_beam_id},
                                             {"latency_us", m.code_parent_latency_us},
                                             {"spread", m.code_parent_spread}}
                                      : json(nullptr);
    }
    return EmitEvent(event_type::kBestSelected, std::move(d));
  }

  Status SelectBeam(int p, int i, const std::string& pre) {
    if (default_mode()) return SelectBeamDefault(p, i, pre);
    json members = json::array();
    if (i == 0) {
      members.push_back({{"beam_id", activity_id::BeamMember(pre, 0)},
                         {"source_sha256", st_.problems[p].info.baseline_sha256},
                         {"origin", "baseline"},
                         {"parent_beam_id", ""},
                         {"standin", false},
                         {"latency_us", 0.0}});
    } else {
      const auto groups = BuildGroups(spec(), It(p, i - 1));
      const auto picks = BeamPolicyFor(spec().mode).Select(groups, spec().search.B);
      for (size_t j = 0; j < picks.size(); ++j) {
        const BeamPick& pick = picks[j];
        members.push_back({{"beam_id", activity_id::BeamMember(pre, static_cast<int>(j))},
                           {"source_sha256", pick.source_sha256},
                           {"origin", pick.origin},
                           {"parent_beam_id", groups[pick.group_index].parent_beam_id},
                           {"standin", pick.standin},
                           {"latency_us", pick.latency_us}});
      }
    }
    return EmitEvent(event_type::kBeamSelected,
                     {{"problem", p}, {"iteration", i}, {"members", members}});
  }

  Status SelectBeamDefault(int p, int i, const std::string& pre) {
    json members = json::array();
    if (i == 0) {
      const ProblemInfo& info = st_.problems[p].info;
      ACCELOPT_ASSIGN_OR_RETURN(std::string baseline, Text(info.baseline_sha256));
      members.push_back({{"beam_id", activity_id::BeamMember(pre, 0)},
                         {"source_sha256", info.baseline_sha256},
                         {"normalized_sha256", NormalizedCodeSha256(baseline)},
                         {"origin", "baseline"},
                         {"parent_beam_id", ""},
                         {"standin", false},
                         {"carried", false},
                         {"latency_us", 0.0},
                         {"spread", 0.0},
                         {"code_parent", nullptr}});
      return EmitEvent(event_type::kBeamSelected,
                       {{"problem", p}, {"iteration", i}, {"members", members}});
    }
    const IterationState& prev = It(p, i - 1);
    const auto groups = BuildGroups(spec(), prev);
    const auto picks = BeamPolicyFor(spec().mode).Select(groups, spec().search.B);
    for (size_t j = 0; j < picks.size(); ++j) {
      const BeamPick& pick = picks[j];
      const Group& g = groups[pick.group_index];
      const BeamMember& parent = prev.beam[g.parent_index];
      json m = {{"beam_id", activity_id::BeamMember(pre, static_cast<int>(j))},
                {"source_sha256", pick.source_sha256},
                {"normalized_sha256", pick.normalized_sha256},
                {"standin", false},
                {"carried", pick.carried},
                {"parent_beam_id", parent.beam_id},
                {"latency_us", pick.latency_us},
                {"spread", pick.spread}};
      if (pick.carried) {
        m["origin"] = parent.origin;
        m["code_parent"] = parent.has_code_parent
                               ? json{{"beam_id", parent.code_parent_beam_id},
                                      {"latency_us", parent.code_parent_latency_us},
                                      {"spread", parent.code_parent_spread}}
                               : json(nullptr);
      } else {
        m["origin"] = pick.origin;
        m["code_parent"] = {{"beam_id", parent.beam_id},
                            {"latency_us", g.parent_latency_us},
                            {"spread", g.parent_spread}};
      }
      members.push_back(std::move(m));
    }
    return EmitEvent(event_type::kBeamSelected,
                     {{"problem", p}, {"iteration", i}, {"members", members}});
  }

  // "default" mode, iterations >= 1, right after the beam: credit the
  // experiences of plans whose child beat its parent beyond noise.
  Status CreditExperiences(int p, int i) {
    const IterationState& prev = It(p, i - 1);
    const auto groups = BuildGroups(spec(), prev);
    json credits = json::array();
    for (const Group& g : groups) {
      const Sample* s = g.Fastest();
      if (!s || !FasterBeyondNoise(s->latency_us, s->spread, g.parent_latency_us,
                                   g.parent_spread)) {
        continue;
      }
      const PlanRecord& plan = prev.plans[PlanIndex(spec(), g.parent_index, g.plan_index)];
      for (const std::string& item : plan.used_experiences) {
        credits.push_back({{"item_id", item},
                           {"plan_id", g.plan_id},
                           {"candidate_id", s->candidate_id},
                           {"child_speedup", g.parent_latency_us / s->latency_us}});
      }
    }
    Command c;
    c.event.type = event_type::kExperiencesCredited;
    c.event.data = {{"problem", p}, {"iteration", i}, {"credits", credits}};
    if (!bank_.empty() && !credits.empty()) {
      c.side_events.push_back(
          {MemoryBankStream(bank_),
           {bank_event::kMemoryItemsCredited,
            {{"campaign", st_.campaign_id},
             {"problem", st_.problems[p].info.id},
             {"iteration", i},
             {"credits", credits}}}});
    }
    Emit(std::move(c));
    return Status::Ok();
  }

  // Content of a memory item for de-duplication: title and description,
  // lower-cased, runs of white space as one space.
  static std::string ContentKey(const std::string& title, const std::string& description) {
    std::string out;
    bool space = true;
    for (char ch : title + "\n" + description) {
      const unsigned char c = static_cast<unsigned char>(ch);
      if (std::isspace(c)) {
        if (!space) out += ' ';
        space = true;
      } else {
        out += static_cast<char>(std::tolower(c));
        space = false;
      }
    }
    return out;
  }

  Status UpdateMemory(int p, int i, const std::string& pre) {
    const IterationState& it = It(p, i);
    const ProblemState& ps = st_.problems[p];
    json added = json::array(), failed = json::array(), dropped = json::array();
    for (size_t m = 0; m < it.pairs.size(); ++m) {
      const std::string id = activity_id::Summarize(pre, static_cast<int>(m));
      ACCELOPT_ASSIGN_OR_RETURN(const ActivityRecord* a, Activity(id));
      if (a->status != ActivityStatus::kCompleted) {
        failed.push_back({{"pair", m}, {"error", a->completion.value("error", "llm call failed")}});
        continue;
      }
      ACCELOPT_ASSIGN_OR_RETURN(std::string reply, Text(a->response_sha256));
      auto summary = ParseSummarizerReply(reply, /*published_rule=*/!default_mode());
      if (!summary.ok()) {
        failed.push_back({{"pair", m}, {"error", summary.status().message()}});
        continue;
      }
      if (default_mode() && summary->no_optimization) {
        dropped.push_back({{"pair", m}, {"reason", "no_optimization"}});
        continue;
      }
      // "default": an item with the same content as one in memory (or one
      // added just now) is that item again; the one in memory keeps its
      // credit.
      if (default_mode()) {
        const std::string content = ContentKey(summary->title, summary->description);
        std::string same;
        for (const MemoryItem& old : ps.memory) {
          if (ContentKey(old.title, old.description) == content) same = old.id;
        }
        for (const json& a : added) {
          if (ContentKey(a.value("title", ""), a.value("description", "")) == content) same = a.value("id", "");
        }
        if (!same.empty()) {
          dropped.push_back({{"pair", m}, {"reason", "duplicate"}, {"of", same}});
          continue;
        }
      }
      MemoryItem item;
      item.id = activity_id::MemoryItem(pre, static_cast<int>(m));
      item.kind = it.pairs[m].kind;
      item.title = summary->title;
      item.description = summary->description;
      item.slow_snippet = summary->slow_snippet;
      item.fast_snippet = summary->fast_snippet;
      item.no_optimization = summary->no_optimization;
      item.problem = ps.info.id;
      item.iteration = i;
      item.summarizer_activity = id;
      item.pair = it.pairs[m];
      item.derived_from = UsedExperiences(p, i - 1, item.pair.plan_id);
      added.push_back(ToJson(item));
    }
    const size_t cap = static_cast<size_t>(spec().search.ExpN);
    while (added.size() > cap) added.erase(added.size() - 1);
    json d = {{"problem", p}, {"iteration", i}, {"added", added}};
    Command c;
    if (bank_.empty()) {
      Rng rng(spec().seed, pre + "/memory");
      json retained = json::array();
      for (size_t idx : MemoryPolicyFor(spec().mode)
                            .RetainItems(ps.memory, added.size(), spec().search, rng)) {
        retained.push_back(ps.memory[idx].id);
      }
      d["retained"] = retained;
    } else {
      // The bank keeps every item; what planners see is its selection.
      d["bank"] = bank_;
      d["retained"] = json::array();
      if (!added.empty()) {
        c.side_events.push_back({MemoryBankStream(bank_),
                                 {bank_event::kMemoryItemsAdded,
                                  {{"source", "campaign"},
                                   {"campaign", st_.campaign_id},
                                   {"problem", ps.info.id},
                                   {"iteration", i},
                                   {"items", added}}}});
      }
    }
    d["failed"] = failed;
    if (default_mode()) d["dropped"] = dropped;
    c.event.type = event_type::kMemoryUpdated;
    c.event.data = std::move(d);
    Emit(std::move(c));
    return Status::Ok();
  }

  // The experiences the plan `plan_id` of iteration i named ("default" mode).
  std::vector<std::string> UsedExperiences(int p, int i, const std::string& plan_id) const {
    if (i < 0) return {};
    const IterationState& it = It(p, i);
    const std::string pre = IterationPrefix(st_.campaign_id, p, i);
    for (size_t b = 0; b < it.beam.size(); ++b) {
      for (int n = 0; n < spec().search.N; ++n) {
        if (PlanId(pre, static_cast<int>(b), n) != plan_id) continue;
        return it.plans[PlanIndex(spec(), static_cast<int>(b), n)].used_experiences;
      }
    }
    return {};
  }

  Status ScheduleSnapshot(int p, int i, const std::string& pre) {
    const json payload = {{"bank", bank_},
                          {"problem", st_.problems[p].info.id},
                          {"limit", spec().search.ExpN}};
    Command c;
    c.event.type = event_type::kActivityScheduled;
    c.event.data = Header(activity_id::MemorySnapshot(pre), "memory", kRoleMemory, kPurposeMemorySnapshot, p, i,
                          json::object(), Amounts{}, payload);
    c.run = ActivityRequest{activity_id::MemorySnapshot(pre), ActivityKind::kMemory, kRoleMemory, payload};
    Emit(std::move(c));
    return Status::Ok();
  }

  static std::string PlanId(const std::string& pre, int b, int n) {
    return activity_id::Plan(pre, b, n);
  }

  Status SchedulePlanner(int p, int i, int b, int n, const std::string& pre) {
    const std::string plan_id = PlanId(pre, b, n);
    const ProblemState& ps = st_.problems[p];
    const BeamMember& member = It(p, i).beam[b];
    ACCELOPT_ASSIGN_OR_RETURN(std::string reference, Text(ps.info.reference_sha256));
    ACCELOPT_ASSIGN_OR_RETURN(std::string kernel, Text(member.source_sha256));
    KernelContext ctx{ps.info, st_.hardware, reference, kernel, PromptModeOf(spec().mode)};
    // paper: the profile is shuffled once per beam member (all N planner
    // calls of a member see one prompt), as published; default: per plan.
    Rng rng(spec().seed, default_mode() ? plan_id : member.beam_id + "/profile");
    // "No optimization found" items take capacity but are never shown.
    std::vector<MemoryItem> shown;
    for (const MemoryItem& m : ps.memory) {
      if (!m.no_optimization) shown.push_back(m);
    }
    ChatPrompt prompt = PlannerPrompt(ctx, member.measurement.profile, shown, rng, default_mode());
    return ScheduleLlm(plan_id, kRolePlanner, kPurposePlan, p, i, {{"beam", b}, {"plan", n}},
                       prompt);
  }

  Status ProposePlan(int p, int i, int b, int n, const std::string& pre) {
    const std::string plan_id = PlanId(pre, b, n);
    ACCELOPT_ASSIGN_OR_RETURN(const ActivityRecord* a, Activity(plan_id));
    json d = {{"problem", p}, {"iteration", i}, {"beam", b}, {"plan", n},
              {"activity_id", plan_id}};
    if (a->status != ActivityStatus::kCompleted) {
      d["ok"] = false;
      d["error"] = std::string(kLlmFailed) + ": " + a->completion.value("error", "");
    } else {
      ACCELOPT_ASSIGN_OR_RETURN(std::string reply, Text(a->response_sha256));
      if (default_mode()) {
        // The experiences it names, as memory item ids (the memory has not
        // changed since the planner was scheduled: it changes only between
        // iterations).
        const auto& memory = st_.problems[p].memory;
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
    }
    return EmitEvent(event_type::kPlanProposed, std::move(d));
  }

  Status ScheduleExecutor(int p, int i, int b, const PlanRecord& plan, const std::string& id,
                          const json& indices) {
    const ProblemState& ps = st_.problems[p];
    ACCELOPT_ASSIGN_OR_RETURN(std::string reference, Text(ps.info.reference_sha256));
    ACCELOPT_ASSIGN_OR_RETURN(std::string kernel, Text(It(p, i).beam[b].source_sha256));
    KernelContext ctx{ps.info, st_.hardware, reference, kernel, PromptModeOf(spec().mode)};
    ChatPrompt prompt = ExecutorPrompt(ctx, Plan{plan.title, plan.description});
    return ScheduleLlm(id, kRoleExecutor, kPurposeExecute, p, i, indices, prompt);
  }

  Status ProposeCandidate(int p, int i, const std::string& pre, const std::string& nk,
                          const json& indices) {
    const std::string exec_id = activity_id::Execute(pre, nk);
    ACCELOPT_ASSIGN_OR_RETURN(const ActivityRecord* a, Activity(exec_id));
    json d = {{"problem", p},
              {"iteration", i},
              {"candidate_id", activity_id::Candidate(pre, nk)},
              {"executor_activity", exec_id}};
    for (const auto& [k, v] : indices.items()) d[k] = v;
    Command c;
    ACCELOPT_RETURN_IF_ERROR(ReadCode(p, *a, &d, &c));
    c.event.type = event_type::kCandidateProposed;
    c.event.data = std::move(d);
    Emit(std::move(c));
    return Status::Ok();
  }

  bool IterationDone(const IterationState& it) const {
    if (!it.beam_selected || (it.iteration > 0 && !it.memory_updated)) return false;
    if (!bank_.empty() && !it.snapshot_taken) return false;
    for (const BeamMember& b : it.beam) {
      if (!b.measured) return false;
    }
    const int K = spec().search.K;
    const int F = FixAttempts(spec());
    for (size_t pi = 0; pi < it.plans.size(); ++pi) {
      const PlanRecord& plan = it.plans[pi];
      if (!plan.proposed) return false;
      if (!plan.ok) continue;
      for (int k = 0; k < K; ++k) {
        const CandidateRecord& c = it.candidates[pi * K + k];
        if (!c.proposed || (c.ok && !c.evaluated)) return false;
        if (c.ok && c.attempt < F && FixableResult(c.measurement)) return false;  // a fix is due
      }
    }
    return true;
  }

  // "" when problem p evaluated at least one candidate or no LLM call of it
  // failed; else why it has nothing to show ("no candidate was evaluated: 12
  // of 12 LLM calls failed; first: auth (HTTP 401) from provider 'local': ...").
  std::string LlmFailureReason(int p) const {
    for (const IterationState& it : st_.problems[p].iterations) {
      for (const CandidateRecord& c : it.candidates) {
        if (c.evaluated) return "";
        for (const CandidateVersion& v : c.versions) {
          if (v.evaluated) return "";
        }
      }
    }
    int calls = 0, failed = 0;
    const ActivityRecord* first = nullptr;
    for (const auto& [id, a] : st_.activities) {
      if (a.problem != p || a.kind != ActivityKind::kLlm) continue;
      ++calls;
      if (a.status != ActivityStatus::kFailed) continue;
      ++failed;
      if (!first || a.seq < first->seq) first = &a;
    }
    if (failed == 0) return "";
    return "no candidate was evaluated: " + std::to_string(failed) + " of " + std::to_string(calls) +
           " LLM calls failed; first: " + first->completion.value("error", "llm call failed");
  }

  // completed: every problem completed; partial: some completed, some
  // failed; failed: none completed.
  void Finish() {
    std::string reasons;
    int completed = 0, failed = 0;
    for (const ProblemState& ps : st_.problems) {
      if (ps.status == kStatusCompleted) ++completed;
      else ++failed;
      if (ps.status != kStatusCompleted && !ps.reason.empty()) {
        reasons += (reasons.empty() ? "" : "; ") + ps.info.id + ": " + ps.reason;
      }
    }
    if (completed == 0) {
      EmitEvent(event_type::kCampaignFailed, {{"reason", "every problem failed: " + reasons}});
    } else if (failed > 0) {
      EmitEvent(event_type::kCampaignCompleted,
                {{"status", kStatusPartial},
                 {"reason", std::to_string(failed) + " of " + std::to_string(failed + completed) +
                                " problems failed: " + reasons}});
    } else {
      EmitEvent(event_type::kCampaignCompleted, {{"status", kStatusCompleted}, {"reason", ""}});
    }
  }

  void Exhausted(const std::string& resource) {
    EmitEvent(event_type::kBudgetExhausted, {{"resource", resource},
                                             {"spent", ToJson(st_.budget.spent)},
                                             {"reserved", ToJson(st_.budget.reserved)},
                                             {"in_flight", st_.in_flight}});
    EmitEvent(event_type::kCampaignCompleted,
                     {{"status", kStatusBudgetExhausted},
                      {"reason", "the " + resource + " budget is exhausted"}});
  }

  const CampaignState& st_;
  const BlobSource& blobs_;
  BudgetLedger budget_;  // the state's ledger plus this round's reservations
  const std::string bank_;  // MemoryBankOf(state): "" for per-problem memory
  std::vector<Command> out_;
  std::optional<std::string> blocked_;
};

}  // namespace

Result<std::vector<Command>> Decide(const CampaignState& state, const BlobSource& blobs) {
  return Decider(state, blobs).Run();
}

}  // namespace accelopt::workflows
