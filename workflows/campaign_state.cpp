#include "workflows/campaign_state.hpp"

#include <cmath>

namespace accelopt::workflows {

const char* ActivityKindName(ActivityKind k) {
  return k == ActivityKind::kLlm ? "llm" : "evaluation";
}

int PlanIndex(const CampaignSpec& spec, int beam, int plan) { return beam * spec.search.N + plan; }

int CandidateIndex(const CampaignSpec& spec, int beam, int plan, int sample) {
  return PlanIndex(spec, beam, plan) * spec.search.K + sample;
}

double BeamMember::latency_us() const {
  return measured && measurement.correct ? measurement.latency_us : selection_latency_us;
}

Measurement ReadEvaluationResult(const json& result) {
  Measurement m;
  if (!result.is_object()) {
    m.status = "internal_error";
    m.reason = "evaluation result is not an object";
    return m;
  }
  m.status = result.value("status", "internal_error");
  m.reason = result.contains("reason") && result["reason"].is_string()
                 ? result["reason"].get<std::string>()
                 : std::string();
  if (result.contains("profile") && result["profile"].is_object()) m.profile = result["profile"];
  if (result.contains("percent_of_peak") && result["percent_of_peak"].is_number()) {
    m.percent_of_peak = result["percent_of_peak"].get<double>();
  }
  double latency = 0;
  if (result.contains("latency") && result["latency"].is_object()) {
    const json& l = result["latency"];
    if (l.contains("spread") && l["spread"].is_number()) m.spread = l["spread"].get<double>();
    if (l.contains("median_us") && l["median_us"].is_number()) {
      latency = l["median_us"].get<double>();
    } else if (l.contains("mean_us") && l["mean_us"].is_number()) {
      latency = l["mean_us"].get<double>();
    }
  }
  const bool correct_flag = result.contains("correct") && result["correct"].is_boolean() &&
                            result["correct"].get<bool>();
  m.latency_us = latency;
  m.correct = m.status == "ok" && correct_flag && std::isfinite(latency) && latency > 0;
  if (m.status == "ok" && !m.correct && m.reason.empty()) {
    m.reason = "result marked ok but not correct or without a latency";
  }
  return m;
}

namespace {

Status Bad(const Event& e, const std::string& why) {
  return Corruption(e.type + ": " + why);
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
    ps.info = ProblemInfoFromJson(p);
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
  std::vector<MemoryItem> memory;
  for (const json& m : e.data.at("added")) memory.push_back(MemoryItemFromJson(m));
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
  if (kind != "llm" && kind != "evaluation") return Bad(e, "unknown kind " + kind);
  a.kind = kind == "llm" ? ActivityKind::kLlm : ActivityKind::kEvaluation;
  a.role = d.at("role").get<std::string>();
  a.purpose = d.at("purpose").get<std::string>();
  a.problem = d.at("problem").get<int>();
  a.iteration = d.at("iteration").get<int>();
  a.beam = d.value("beam", 0);
  a.plan = d.value("plan", 0);
  a.sample = d.value("sample", 0);
  a.pair = d.value("pair", 0);
  a.payload = d.at("payload");
  a.reservation = AmountsFromJson(d.at("reservation"));
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
  } else if (a.purpose == kPurposeExecute || a.purpose == kPurposeEvaluate) {
    const int i = CandidateIndex(spec, a.beam, a.plan, a.sample);
    if (!in_range(i, it->candidates.size())) return Bad(e, "candidate index out of range");
    if (a.purpose == kPurposeExecute) {
      it->candidates[i].exec_scheduled = true;
    } else {
      it->candidates[i].eval_scheduled = true;
    }
  } else if (a.purpose == kPurposeSummarize) {
    if (!in_range(a.pair, it->pairs.size())) return Bad(e, "pair index out of range");
    it->pair_scheduled[a.pair] = true;
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
    m = ReadEvaluationResult(e.data.at("result"));
  } else {
    m.status = "evaluation_failed";
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
  } else {
    CandidateRecord& c = it.candidates.at(CandidateIndex(s.spec, a->beam, a->plan, a->sample));
    c.evaluated = true;
    c.measurement = std::move(m);
  }
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
  return Status::Ok();
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
    IterationState it;
    it.iteration = i;
    ps->iterations.push_back(std::move(it));
    return Status::Ok();
  }
  if (e.type == t::kBeamSelected) return ApplyBeamSelected(s, e);
  if (e.type == t::kMemoryPairsSelected) {
    ACCELOPT_ASSIGN_OR_RETURN(IterationState * it, IterationAt(s, e));
    if (it->pairs_selected) return Bad(e, "pairs already selected");
    for (const json& p : e.data.at("pairs")) it->pairs.push_back(MemoryPairFromJson(p));
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
  if (e.type == t::kPlanProposed) return ApplyPlanProposed(s, e);
  if (e.type == t::kCandidateProposed) return ApplyCandidateProposed(s, e);
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
  if (e.type == t::kCampaignCompleted || e.type == t::kCampaignFailed ||
      e.type == t::kCampaignCancelled) {
    if (s.finished()) return Bad(e, "campaign already finished (" + s.status + ")");
    if (e.type == t::kCampaignCompleted) {
      s.status = e.data.at("status").get<std::string>();
      if (s.status != kStatusCompleted && s.status != kStatusBudgetExhausted) {
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
