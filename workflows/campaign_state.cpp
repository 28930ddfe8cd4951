#include "workflows/campaign_state.hpp"

#include "workflows/activity_id.hpp"
#include "workflows/mode_rules.hpp"
#include "workflows/eval_vocabulary.hpp"
#include "workflows/parse.hpp"

namespace accelopt::workflows {

int PlanIndex(const CampaignSpec& spec, int beam, int plan) { return beam * spec.search.N + plan; }

int CandidateIndex(const CampaignSpec& spec, int beam, int plan, int sample) {
  return PlanIndex(spec, beam, plan) * spec.search.K + sample;
}

double BeamMember::latency_us() const {
  return measured && measurement.correct ? measurement.latency_us : selection_latency_us;
}

double BeamMember::spread() const { return measured && measurement.correct ? measurement.spread : selection_spread; }

namespace {

Status Bad(const Event& e, const std::string& why) { return Corruption(e.type + ": " + why); }

// A value the event carries (T::FromJson), or the event's corruption.
template <typename T>
Result<T> DecodeIn(const Event& e, const json& j) {
  Result<T> r = T::FromJson(j);
  if (!r.ok()) return Bad(e, r.status().message());
  return r;
}

Result<ProblemState*> ProblemAt(CampaignState& s, const Event& e) {
  const int p = e.data.at("problem").get<int>();
  if (p < 0 || p >= static_cast<int>(s.problems.size())) {
    return Bad(e, "problem " + std::to_string(p) + " out of range");
  }
  return &s.problems[p];
}

Result<IterationState*> IterationAt(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(ProblemState * ps, ProblemAt(s, e));
  const int i = e.data.at("iteration").get<int>();
  if (i < 0 || i >= static_cast<int>(ps->iterations.size())) {
    return Bad(e, "iteration " + std::to_string(i) + " not started");
  }
  return &ps->iterations[i];
}

Status ApplyStarted(CampaignState& s, const Event& e) {
  if (s.started) return Bad(e, "campaign already started");
  auto spec = ParseCampaignSpec(e.data.at("spec"));
  if (!spec.ok()) return Bad(e, spec.status().message());
  s.spec = std::move(*spec);
  s.campaign_id = e.data.at("campaign_id").get<std::string>();
  s.hardware = e.data.value("hardware", json::object());
  for (const json& p : e.data.at("problems")) {
    ProblemState ps;
    ACCELOPT_ASSIGN_OR_RETURN(ps.info, DecodeIn<ProblemInfo>(e, p));
    s.problems.push_back(std::move(ps));
  }
  s.started = true;
  s.status = kStatusRunning;
  s.started_at_us = e.recorded_at_us;
  return Status::Ok();
}

Status ApplyBeamSelected(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(IterationState * it, IterationAt(s, e));
  if (it->beam_selected) return Bad(e, "beam already selected");
  for (const json& m : e.data.at("members")) {
    BeamMember b;
    b.beam_id = m.at("beam_id").get<std::string>();
    b.source_sha256 = m.at("source_sha256").get<std::string>();
    b.origin = m.at("origin").get<std::string>();
    b.parent_beam_id = m.at("parent_beam_id").get<std::string>();
    b.standin = m.at("standin").get<bool>();
    b.selection_latency_us = m.at("latency_us").get<double>();
    b.selection_spread = m.value("spread", 0.0);
    b.normalized_sha256 = m.value("normalized_sha256", "");
    b.carried = m.value("carried", false);
    if (m.contains("code_parent") && m["code_parent"].is_object()) {
      const json& cp = m["code_parent"];
      b.has_code_parent = true;
      b.code_parent_beam_id = cp.at("beam_id").get<std::string>();
      b.code_parent_latency_us = cp.at("latency_us").get<double>();
      b.code_parent_spread = cp.at("spread").get<double>();
    }
    it->beam.push_back(std::move(b));
  }
  it->beam_selected = true;
  const int n = static_cast<int>(it->beam.size()) * s.spec.search.N;
  it->plans.assign(n, PlanRecord{});
  it->candidates.assign(static_cast<size_t>(n) * s.spec.search.K, CandidateRecord{});
  return Status::Ok();
}

Status ApplyMemoryUpdated(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(IterationState * it, IterationAt(s, e));
  ProblemState& ps = s.problems[e.data.at("problem").get<int>()];
  if (it->memory_updated) return Bad(e, "memory already updated for this iteration");
  if (e.data.contains("bank")) {
    // The items went to the bank (MemoryItemsAdded in the same batch); the
    // planners see the bank through the next MemorySnapshotTaken.
    for (const json& m : e.data.at("added")) {
      ACCELOPT_RETURN_IF_ERROR(DecodeIn<MemoryItem>(e, m).status());
    }
    it->memory_updated = true;
    return Status::Ok();
  }
  std::vector<MemoryItem> memory;
  for (const json& m : e.data.at("added")) {
    ACCELOPT_ASSIGN_OR_RETURN(MemoryItem item, DecodeIn<MemoryItem>(e, m));
    memory.push_back(std::move(item));
  }
  for (const json& id : e.data.at("retained")) {
    const std::string want = id.get<std::string>();
    bool found = false;
    for (const MemoryItem& old : ps.memory) {
      if (old.id == want) {
        memory.push_back(old);
        found = true;
        break;
      }
    }
    if (!found) return Bad(e, "retained item " + want + " is not in memory");
  }
  ps.memory = std::move(memory);
  it->memory_updated = true;
  return Status::Ok();
}

Status ApplyScheduled(CampaignState& s, const Event& e) {
  ActivityRecord a;
  const json& d = e.data;
  a.id = d.at("activity_id").get<std::string>();
  if (s.activities.count(a.id)) return Bad(e, "activity " + a.id + " scheduled twice");
  const std::string kind = d.at("kind").get<std::string>();
  if (kind == "llm") {
    a.kind = ActivityKind::kLlm;
  } else if (kind == "evaluation") {
    a.kind = ActivityKind::kEvaluation;
  } else if (kind == "memory") {
    a.kind = ActivityKind::kMemory;
  } else {
    return Bad(e, "unknown kind " + kind);
  }
  a.role = d.at("role").get<std::string>();
  a.purpose = d.at("purpose").get<std::string>();
  a.problem = d.at("problem").get<int>();
  a.iteration = d.at("iteration").get<int>();
  a.beam = d.value("beam", 0);
  a.plan = d.value("plan", 0);
  a.sample = d.value("sample", 0);
  a.pair = d.value("pair", 0);
  a.attempt = d.value("attempt", 0);
  a.payload = d.at("payload");
  ACCELOPT_ASSIGN_OR_RETURN(a.reservation, DecodeIn<Amounts>(e, d.at("reservation")));
  a.scheduled_at_us = e.recorded_at_us;
  a.seq = s.events_applied;
  ACCELOPT_ASSIGN_OR_RETURN(IterationState * it, IterationAt(s, e));
  const CampaignSpec& spec = s.spec;
  auto in_range = [&](int v, size_t n) { return v >= 0 && static_cast<size_t>(v) < n; };
  if (a.purpose == kPurposeMeasure) {
    if (!in_range(a.beam, it->beam.size())) return Bad(e, "beam index out of range");
    it->beam[a.beam].measure_scheduled = true;
  } else if (a.purpose == kPurposePlan) {
    const int i = PlanIndex(spec, a.beam, a.plan);
    if (!in_range(i, it->plans.size())) return Bad(e, "plan index out of range");
    it->plans[i].scheduled = true;
  } else if (a.purpose == kPurposeExecute || a.purpose == kPurposeEvaluate || a.purpose == kPurposeFix) {
    const int i = CandidateIndex(spec, a.beam, a.plan, a.sample);
    if (!in_range(i, it->candidates.size())) return Bad(e, "candidate index out of range");
    CandidateRecord& c = it->candidates[i];
    if (a.purpose == kPurposeExecute) {
      c.exec_scheduled = true;
    } else if (a.purpose == kPurposeEvaluate) {
      if (a.attempt != c.attempt) return Bad(e, "evaluation of a replaced candidate version");
      c.eval_scheduled = true;
    } else {
      if (a.attempt != c.attempt + 1 || !c.evaluated) return Bad(e, "fix attempt out of order");
      c.fix_scheduled = true;
    }
  } else if (a.purpose == kPurposeFinalMeasure) {
    ProblemState& ps = s.problems[a.problem];
    if (!ps.final_best.selected || ps.final_best.measure_scheduled) {
      return Bad(e, "final measurement without a selected best, or twice");
    }
    ps.final_best.measure_scheduled = true;
    ps.final_best.activity_id = a.id;
  } else if (a.purpose == kPurposeSummarize) {
    if (!in_range(a.pair, it->pairs.size())) return Bad(e, "pair index out of range");
    it->pair_scheduled[a.pair] = true;
  } else if (a.purpose == kPurposeMemorySnapshot) {
    if (a.kind != ActivityKind::kMemory || it->snapshot_scheduled) {
      return Bad(e, "memory snapshot of another kind, or twice");
    }
    it->snapshot_scheduled = true;
  } else {
    return Bad(e, "unknown purpose " + a.purpose);
  }
  s.budget.Reserve(a.reservation);
  ++s.in_flight;
  s.activities.emplace(a.id, std::move(a));
  return Status::Ok();
}

Result<ActivityRecord*> OpenActivity(CampaignState& s, const Event& e, ActivityKind kind) {
  const std::string id = e.data.at("activity_id").get<std::string>();
  auto found = s.activities.find(id);
  if (found == s.activities.end()) return Bad(e, "unknown activity " + id);
  ActivityRecord& a = found->second;
  if (a.kind != kind) return Bad(e, "activity " + id + " is not of this kind");
  if (a.status != ActivityStatus::kScheduled) return Bad(e, "activity " + id + " completed twice");
  return &a;
}

Status ApplyLlmDone(CampaignState& s, const Event& e, bool ok) {
  ACCELOPT_ASSIGN_OR_RETURN(ActivityRecord * a, OpenActivity(s, e, ActivityKind::kLlm));
  a->status = ok ? ActivityStatus::kCompleted : ActivityStatus::kFailed;
  a->completion = e.data;
  a->completed_at_us = e.recorded_at_us;
  if (ok) a->response_sha256 = e.data.at("response_sha256").get<std::string>();
  Amounts actual;
  const json usage = e.data.value("usage", json::object());
  actual.tokens = usage.value("input_tokens", int64_t{0}) + usage.value("output_tokens", int64_t{0});
  actual.cost_nusd = UsdToNanoRound(e.data.value("cost_usd", 0.0));
  actual.llm_calls = 1;
  s.budget.Settle(a->reservation, actual);
  --s.in_flight;
  IterationState& it = s.problems.at(a->problem).iterations.at(a->iteration);
  if (a->purpose == kPurposePlan) {
    it.plans.at(PlanIndex(s.spec, a->beam, a->plan)).call_done = true;
  } else if (a->purpose == kPurposeExecute) {
    it.candidates.at(CandidateIndex(s.spec, a->beam, a->plan, a->sample)).exec_done = true;
  } else if (a->purpose == kPurposeSummarize) {
    it.pair_done.at(a->pair) = true;
  } else if (a->purpose == kPurposeFix) {
    it.candidates.at(CandidateIndex(s.spec, a->beam, a->plan, a->sample)).fix_done = true;
  }
  return Status::Ok();
}

Status ApplyEvaluationDone(CampaignState& s, const Event& e, bool ok) {
  ACCELOPT_ASSIGN_OR_RETURN(ActivityRecord * a, OpenActivity(s, e, ActivityKind::kEvaluation));
  a->status = ok ? ActivityStatus::kCompleted : ActivityStatus::kFailed;
  a->completion = e.data;
  a->completed_at_us = e.recorded_at_us;
  Measurement m;
  if (ok) {
    m = ReadEvaluationResult(e.data.at("result"),
                             LatencyFigureOf(ModeRulesOf(s.spec), s.problems.at(a->problem).info.backend));
    if (m.test_stand_in) {
      if (s.stand_in_results++ == 0) s.first_stand_in_activity = a->id;
    } else if (m.latency_us > 0) {
      ++s.measured_results;
    }
  } else {
    m.status = eval_vocab::kEvaluationFailed;
    m.reason = e.data.value("error", "");
  }
  Amounts actual;
  actual.evaluations = 1;
  s.budget.Settle(a->reservation, actual);
  --s.in_flight;
  IterationState& it = s.problems.at(a->problem).iterations.at(a->iteration);
  if (a->purpose == kPurposeMeasure) {
    BeamMember& b = it.beam.at(a->beam);
    b.measured = true;
    b.measurement = std::move(m);
  } else if (a->purpose == kPurposeFinalMeasure) {
    FinalBest& f = s.problems.at(a->problem).final_best;
    f.measured = true;
    f.measurement = std::move(m);
  } else {
    CandidateRecord& c = it.candidates.at(CandidateIndex(s.spec, a->beam, a->plan, a->sample));
    c.evaluated = true;
    c.measurement = std::move(m);
    c.eval_activity = a->id;
  }
  return Status::Ok();
}

Status ApplyMemorySnapshotTaken(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(ActivityRecord * a, OpenActivity(s, e, ActivityKind::kMemory));
  std::vector<MemoryItem> memory;
  json ids = json::array();
  for (const json& m : e.data.at("items")) {
    ACCELOPT_ASSIGN_OR_RETURN(MemoryItem item, DecodeIn<MemoryItem>(e, m));
    memory.push_back(std::move(item));
    ids.push_back(memory.back().id);
  }
  a->status = ActivityStatus::kCompleted;
  a->completion = {{"bank", e.data.at("bank")},
                   {"bank_version", e.data.at("bank_version")},
                   {"generation", e.data.at("generation")},
                   {"items", ids}};
  a->completed_at_us = e.recorded_at_us;
  s.budget.Settle(a->reservation, Amounts{});
  --s.in_flight;
  IterationState& it = s.problems.at(a->problem).iterations.at(a->iteration);
  it.snapshot_taken = true;
  it.snapshot = a->completion;
  s.problems.at(a->problem).memory = std::move(memory);
  return Status::Ok();
}

Status ApplyPlanProposed(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(IterationState * it, IterationAt(s, e));
  const int i = PlanIndex(s.spec, e.data.at("beam").get<int>(), e.data.at("plan").get<int>());
  if (i < 0 || i >= static_cast<int>(it->plans.size())) return Bad(e, "plan index out of range");
  PlanRecord& p = it->plans[i];
  if (p.proposed) return Bad(e, "plan proposed twice");
  p.proposed = true;
  p.ok = e.data.at("ok").get<bool>();
  p.title = e.data.value("title", "");
  p.description = e.data.value("description", "");
  p.error = e.data.value("error", "");
  if (e.data.contains("used_experiences")) {
    p.used_experiences = e.data["used_experiences"].get<std::vector<std::string>>();
  }
  return Status::Ok();
}

Result<CandidateRecord*> CandidateAt(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(IterationState * it, IterationAt(s, e));
  const int i = CandidateIndex(s.spec, e.data.at("beam").get<int>(), e.data.at("plan").get<int>(),
                               e.data.at("sample").get<int>());
  if (i < 0 || i >= static_cast<int>(it->candidates.size())) {
    return Bad(e, "candidate index out of range");
  }
  CandidateRecord& c = it->candidates[i];
  if (!c.proposed || c.attempt != e.data.at("attempt").get<int>() - (e.type == event_type::kFixProposed ? 1 : 0)) {
    return Bad(e, "candidate version out of order");
  }
  return &c;
}

Status ApplyFixProposed(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(CandidateRecord * c, CandidateAt(s, e));
  if (!c->fix_done) return Bad(e, "fix proposed before its call finished");
  CandidateVersion old;
  old.ok = c->ok;
  old.failure = c->failure;
  old.detail = c->detail;
  old.source_sha256 = c->source_sha256;
  old.normalized_sha256 = c->normalized_sha256;
  old.evaluated = c->evaluated;
  old.eval_activity = c->eval_activity;
  old.measurement = c->measurement;
  c->versions.push_back(std::move(old));
  c->attempt = e.data.at("attempt").get<int>();
  c->ok = e.data.at("ok").get<bool>();
  c->source_sha256 = e.data.value("source_sha256", "");
  c->normalized_sha256 = e.data.value("normalized_sha256", "");
  c->failure = e.data.value("failure", "");
  c->detail = e.data.value("detail", "");
  c->eval_scheduled = c->evaluated = c->reused = false;
  c->eval_activity.clear();
  c->measurement = Measurement{};
  c->fix_scheduled = c->fix_done = false;
  return Status::Ok();
}

Status ApplyEvaluationReused(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(CandidateRecord * c, CandidateAt(s, e));
  if (!c->ok || c->evaluated || c->eval_scheduled) return Bad(e, "candidate is not awaiting evaluation");
  const std::string from = e.data.at("reused_activity").get<std::string>();
  auto found = s.activities.find(from);
  if (found == s.activities.end() || found->second.kind != ActivityKind::kEvaluation ||
      found->second.status != ActivityStatus::kCompleted) {
    return Bad(e, "reused activity " + from + " is not a completed evaluation");
  }
  c->measurement =
      ReadEvaluationResult(found->second.completion.at("result"),
                           LatencyFigureOf(ModeRulesOf(s.spec), s.problems.at(found->second.problem).info.backend));
  c->evaluated = true;
  c->reused = true;
  c->eval_activity = from;
  return Status::Ok();
}

// The sample ends unevaluated, as one without usable code ("No
// implementation found" in the published results).
Status ApplyEvaluationSkipped(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(CandidateRecord * c, CandidateAt(s, e));
  if (!c->ok || c->evaluated || c->eval_scheduled) return Bad(e, "candidate is not awaiting evaluation");
  c->ok = false;
  c->failure = kSkippedAfterTimeout;
  c->detail = "not evaluated: " + e.data.at("timed_out").get<std::string>() + " of the same plan hit the hard timeout";
  return Status::Ok();
}

Status ApplyExperiencesCredited(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(ProblemState * ps, ProblemAt(s, e));
  ACCELOPT_ASSIGN_OR_RETURN(IterationState * it, IterationAt(s, e));
  if (it->credited || !it->beam_selected) return Bad(e, "credits out of order");
  it->credited = true;
  const int iteration = e.data.at("iteration").get<int>();
  for (const json& credit : e.data.at("credits")) {
    const std::string id = credit.at("item_id").get<std::string>();
    bool found = false;
    for (MemoryItem& m : ps->memory) {
      if (m.id != id) continue;
      ++m.credit;
      m.last_credited_iteration = iteration;
      found = true;
    }
    if (!found) return Bad(e, "credited item " + id + " is not in memory");
  }
  return Status::Ok();
}

// Records the reusable evaluations of a completed iteration (evaluated_code).
void IndexEvaluations(CampaignState& s, int p, const IterationState& it) {
  ProblemState& ps = s.problems[p];
  auto add = [&](const std::string& norm, const std::string& activity, const Measurement& m) {
    if (norm.empty() || activity.empty() || !ReusableResult(m)) return;
    ps.evaluated_code.emplace(norm, activity);
  };
  const std::string pre = activity_id::Iteration(s.campaign_id, p, it.iteration);
  for (size_t b = 0; b < it.beam.size(); ++b) {
    const BeamMember& m = it.beam[b];
    if (m.measured) add(m.normalized_sha256, activity_id::Measure(pre, static_cast<int>(b)), m.measurement);
  }
  for (const CandidateRecord& c : it.candidates) {
    for (const CandidateVersion& v : c.versions) {
      if (v.ok && v.evaluated) add(v.normalized_sha256, v.eval_activity, v.measurement);
    }
    if (c.ok && c.evaluated) add(c.normalized_sha256, c.eval_activity, c.measurement);
  }
}

Status ApplyCandidateProposed(CampaignState& s, const Event& e) {
  ACCELOPT_ASSIGN_OR_RETURN(IterationState * it, IterationAt(s, e));
  const int i = CandidateIndex(s.spec, e.data.at("beam").get<int>(), e.data.at("plan").get<int>(),
                               e.data.at("sample").get<int>());
  if (i < 0 || i >= static_cast<int>(it->candidates.size())) {
    return Bad(e, "candidate index out of range");
  }
  CandidateRecord& c = it->candidates[i];
  if (c.proposed) return Bad(e, "candidate proposed twice");
  c.proposed = true;
  c.id = e.data.at("candidate_id").get<std::string>();
  c.ok = e.data.at("ok").get<bool>();
  c.source_sha256 = e.data.value("source_sha256", "");
  c.failure = e.data.value("failure", "");
  c.detail = e.data.value("detail", "");
  c.normalized_sha256 = e.data.value("normalized_sha256", "");
  return Status::Ok();
}

Status ApplyOne(CampaignState& s, const Event& e) {
  namespace t = event_type;
  if (e.type == t::kCampaignStarted) return ApplyStarted(s, e);
  if (!s.started) return Bad(e, "event before CampaignStarted");
  if (e.type == t::kIterationStarted) {
    ACCELOPT_ASSIGN_OR_RETURN(ProblemState * ps, ProblemAt(s, e));
    const int i = e.data.at("iteration").get<int>();
    if (i != static_cast<int>(ps->iterations.size())) return Bad(e, "iterations out of order");
    if (ps->status != kStatusRunning) return Bad(e, "problem already finished");
    if (i > 0) IndexEvaluations(s, e.data.at("problem").get<int>(), ps->iterations.back());
    IterationState it;
    it.iteration = i;
    ps->iterations.push_back(std::move(it));
    return Status::Ok();
  }
  if (e.type == t::kBeamSelected) return ApplyBeamSelected(s, e);
  if (e.type == t::kMemoryPairsSelected) {
    ACCELOPT_ASSIGN_OR_RETURN(IterationState * it, IterationAt(s, e));
    if (it->pairs_selected) return Bad(e, "pairs already selected");
    for (const json& p : e.data.at("pairs")) {
      ACCELOPT_ASSIGN_OR_RETURN(MemoryPair pair, DecodeIn<MemoryPair>(e, p));
      it->pairs.push_back(std::move(pair));
    }
    it->pair_scheduled.assign(it->pairs.size(), false);
    it->pair_done.assign(it->pairs.size(), false);
    it->pairs_selected = true;
    return Status::Ok();
  }
  if (e.type == t::kMemoryUpdated) return ApplyMemoryUpdated(s, e);
  if (e.type == t::kActivityScheduled) return ApplyScheduled(s, e);
  if (e.type == t::kLlmCallCompleted) return ApplyLlmDone(s, e, true);
  if (e.type == t::kLlmCallFailed) return ApplyLlmDone(s, e, false);
  if (e.type == t::kEvaluationCompleted) return ApplyEvaluationDone(s, e, true);
  if (e.type == t::kEvaluationFailed) return ApplyEvaluationDone(s, e, false);
  if (e.type == t::kMemorySnapshotTaken) return ApplyMemorySnapshotTaken(s, e);
  if (e.type == t::kPlanProposed) return ApplyPlanProposed(s, e);
  if (e.type == t::kCandidateProposed) return ApplyCandidateProposed(s, e);
  if (e.type == t::kFixProposed) return ApplyFixProposed(s, e);
  if (e.type == t::kEvaluationReused) return ApplyEvaluationReused(s, e);
  if (e.type == t::kEvaluationSkipped) return ApplyEvaluationSkipped(s, e);
  if (e.type == t::kExperiencesCredited) return ApplyExperiencesCredited(s, e);
  if (e.type == t::kBestSelected) {
    ACCELOPT_ASSIGN_OR_RETURN(ProblemState * ps, ProblemAt(s, e));
    if (ps->final_best.selected) return Bad(e, "best selected twice");
    ps->final_best.selected = true;
    ps->final_best.selection = e.data;
    ps->final_best.source_sha256 = e.data.at("source_sha256").get<std::string>();
    return Status::Ok();
  }
  if (e.type == t::kProblemCompleted) {
    ACCELOPT_ASSIGN_OR_RETURN(ProblemState * ps, ProblemAt(s, e));
    if (ps->status != kStatusRunning) return Bad(e, "problem completed twice");
    ps->status = e.data.at("status").get<std::string>();
    ps->reason = e.data.value("reason", "");
    return Status::Ok();
  }
  if (e.type == t::kBudgetExhausted) {
    s.exhausted_resource = e.data.at("resource").get<std::string>();
    return Status::Ok();
  }
  if (e.type == t::kDeadlineReached) return Status::Ok();
  if (e.type == t::kStandInFiguresNoted) {
    if (s.stand_in_noted) return Bad(e, "stand-in figures noted twice");
    s.stand_in_noted = true;
    return Status::Ok();
  }
  if (e.type == t::kCampaignCompleted || e.type == t::kCampaignFailed || e.type == t::kCampaignCancelled) {
    if (s.finished()) return Bad(e, "campaign already finished (" + s.status + ")");
    if (e.type == t::kCampaignCompleted) {
      s.status = e.data.at("status").get<std::string>();
      if (s.status != kStatusCompleted && s.status != kStatusPartial && s.status != kStatusBudgetExhausted) {
        return Bad(e, "unknown status " + s.status);
      }
    } else {
      s.status = e.type == t::kCampaignFailed ? kStatusFailed : kStatusCancelled;
    }
    s.reason = e.data.value("reason", "");
    return Status::Ok();
  }
  return Corruption("unknown event type '" + e.type + "'");
}

}  // namespace

Status Apply(CampaignState& state, const Event& event) {
  if (event.schema_version != 1) {
    return Corruption(event.type + ": schema version " + std::to_string(event.schema_version) +
                      " is not known (expected 1)");
  }
  Status st;
  try {
    st = ApplyOne(state, event);
  } catch (const std::exception& ex) {
    st = Corruption(event.type + ": malformed data: " + ex.what());
  }
  if (!st.ok()) return st;
  if (event.recorded_at_us > state.now_us) state.now_us = event.recorded_at_us;
  ++state.events_applied;
  return Status::Ok();
}

Result<CampaignState> Fold(const std::vector<Event>& events) {
  CampaignState state;
  for (size_t i = 0; i < events.size(); ++i) {
    Status st = Apply(state, events[i]);
    if (!st.ok()) return st.WithContext("event " + std::to_string(i));
  }
  return state;
}

}  // namespace accelopt::workflows
