// Decide (campaign.hpp): one round of decisions, each computed from the
// state as given (no copy of the state: a campaign at paper scale holds
// ~10^5 activities). Every item (beam member, plan, candidate, pair) moves
// at most one step per round; a step that depends on another (an
// evaluation on its CandidateProposed) comes in the next round.
// Reservations of the round are summed in the Round's ledger so that the
// round as a whole keeps every cap.
//
// This file holds the round and its structural steps: the campaign's end
// (every problem done, or a budget exhausted), a problem's start and end,
// and an iteration's start (beam, memory) and end. The policies they call:
//   select.hpp          the beam and the final best
//   decide_memory.hpp   memory pairs, summaries, items, snapshot, credits
//   decide_samples.hpp  the sample loop (plans, samples, evaluations, fixes)
//   mode_rules.hpp      how the modes differ
#include "workflows/activity_id.hpp"
#include "workflows/campaign.hpp"
#include "workflows/decide_memory.hpp"
#include "workflows/decide_round.hpp"
#include "workflows/decide_samples.hpp"
#include "workflows/select.hpp"

namespace accelopt::workflows {

namespace {

// Every step of iteration i is done: its beam selected and measured, its
// memory updated (and read, with a bank), every plan proposed and every
// sample settled (evaluated, with no fix due).
bool IterationDone(const Round& round, const IterationState& it) {
  if (!it.beam_selected || (it.iteration > 0 && !it.memory_updated)) return false;
  if (!round.bank().empty() && !it.snapshot_taken) return false;
  for (const BeamMember& b : it.beam) {
    if (!b.measured) return false;
  }
  const int K = round.spec().search.K;
  const int F = round.rules().fix_attempts;
  for (size_t pi = 0; pi < it.plans.size(); ++pi) {
    const PlanRecord& plan = it.plans[pi];
    if (!plan.proposed) return false;
    if (!plan.ok) continue;
    for (int k = 0; k < K; ++k) {
      const CandidateRecord& c = it.candidates[pi * K + k];
      if (!c.proposed || (c.ok && !c.evaluated)) return false;
      if (FixDue(c, F)) return false;
    }
  }
  return true;
}

// "" when problem p evaluated at least one candidate or no LLM call of it
// failed; else why it has nothing to show ("no candidate was evaluated: 12
// of 12 LLM calls failed; first: auth (HTTP 401) from provider 'local': ...").
std::string LlmFailureReason(const CampaignState& st, int p) {
  for (const IterationState& it : st.problems[p].iterations) {
    for (const CandidateRecord& c : it.candidates) {
      if (c.evaluated) return "";
      for (const CandidateVersion& v : c.versions) {
        if (v.evaluated) return "";
      }
    }
  }
  int calls = 0, failed = 0;
  const ActivityRecord* first = nullptr;
  for (const auto& [id, a] : st.activities) {
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

// The last iteration is done: ("default") the best is selected and
// re-measured beside the baseline, then the problem completes (or fails,
// when its LLM calls failed so that not one candidate was evaluated).
Status EndProblem(Round& round, int p, int i) {
  const ProblemState& ps = round.Problem(p);
  if (round.rules().final_measure) {
    const FinalBest& f = ps.final_best;
    if (!f.selected) {
      return round.EmitEvent(event_type::kBestSelected, SelectBest(round.state(), p, i));
    }
    if (!f.measure_scheduled) {
      // The final best and the baseline, side by side in one run: the
      // reported speedup comes with its interval (report.cpp).
      return round.ScheduleEvaluation(activity_id::FinalMeasure(round.Prefix(p, i)), kPurposeFinalMeasure, p, i,
                                      json::object(), f.source_sha256, ps.info.baseline_sha256);
    }
    if (!f.measured) return Status::Ok();
  }
  const std::string unserved = LlmFailureReason(round.state(), p);
  return round.EmitEvent(
      event_type::kProblemCompleted,
      {{"problem", p}, {"status", unserved.empty() ? kStatusCompleted : kStatusFailed}, {"reason", unserved}});
}

// One round for problem p: structural steps (a new iteration, the beam,
// the memory, the end) end the round for the problem; item steps (beam
// measurements, summaries, plans and samples) run side by side.
Status StepProblem(Round& round, int p) {
  const ProblemState& ps = round.Problem(p);
  if (ps.iterations.empty()) {
    return round.EmitEvent(event_type::kIterationStarted, {{"problem", p}, {"iteration", 0}});
  }
  const int i = static_cast<int>(ps.iterations.size()) - 1;
  const IterationState& it = ps.iterations[i];

  if (!it.beam_selected) {
    ACCELOPT_ASSIGN_OR_RETURN(json members, SelectBeamMembers(round.state(), round.blobs(), p, i));
    return round.EmitEvent(event_type::kBeamSelected,
                           {{"problem", p}, {"iteration", i}, {"members", std::move(members)}});
  }
  if (round.rules().credit_experiences && i > 0 && !it.credited) {
    return CreditExperiences(round, p, i);
  }
  if (i > 0 && !it.pairs_selected) return SelectMemoryPairs(round, p, i);
  // A baseline that does not pass ends the problem.
  if (i == 0 && it.beam[0].measured && !it.beam[0].measurement.correct) {
    const Measurement& m = it.beam[0].measurement;
    return round.EmitEvent(event_type::kProblemCompleted, {{"problem", p},
                                                           {"status", kStatusFailed},
                                                           {"reason", "the baseline did not pass: " + m.status +
                                                                          (m.reason.empty() ? "" : ": " + m.reason)}});
  }
  if (i > 0 && !it.memory_updated && AllPairsSummarized(it)) return UpdateMemory(round, p, i);
  if (IterationDone(round, it)) {
    if (i + 1 < round.spec().search.T) {
      return round.EmitEvent(event_type::kIterationStarted, {{"problem", p}, {"iteration", i + 1}});
    }
    return EndProblem(round, p, i);
  }

  // (Re-)measure the beam.
  const std::string pre = round.Prefix(p, i);
  for (int b = 0; b < static_cast<int>(it.beam.size()); ++b) {
    if (it.beam[b].measure_scheduled) continue;
    ACCELOPT_RETURN_IF_ERROR(round.ScheduleEvaluation(activity_id::Measure(pre, b), kPurposeMeasure, p, i,
                                                      {{"beam", b}}, it.beam[b].source_sha256));
  }
  ACCELOPT_RETURN_IF_ERROR(ScheduleSummaries(round, p, i));
  const bool memory_ready = MemoryReady(round, p, i);
  return StepSamples(round, p, i, memory_ready);
}

// completed: every problem completed; partial: some completed, some
// failed; failed: none completed.
void Finish(Round& round) {
  std::string reasons;
  int completed = 0, failed = 0;
  for (const ProblemState& ps : round.state().problems) {
    if (ps.status == kStatusCompleted)
      ++completed;
    else
      ++failed;
    if (ps.status != kStatusCompleted && !ps.reason.empty()) {
      reasons += (reasons.empty() ? "" : "; ") + ps.info.id + ": " + ps.reason;
    }
  }
  if (completed == 0) {
    round.EmitEvent(event_type::kCampaignFailed, {{"reason", "every problem failed: " + reasons}});
  } else if (failed > 0) {
    round.EmitEvent(event_type::kCampaignCompleted,
                    {{"status", kStatusPartial},
                     {"reason", std::to_string(failed) + " of " + std::to_string(failed + completed) +
                                    " problems failed: " + reasons}});
  } else {
    round.EmitEvent(event_type::kCampaignCompleted, {{"status", kStatusCompleted}, {"reason", ""}});
  }
}

void Exhausted(Round& round, const std::string& resource) {
  const CampaignState& st = round.state();
  round.EmitEvent(event_type::kBudgetExhausted, {{"resource", resource},
                                                 {"spent", ToJson(st.budget.spent)},
                                                 {"reserved", ToJson(st.budget.reserved)},
                                                 {"in_flight", st.in_flight}});
  round.EmitEvent(event_type::kCampaignCompleted,
                  {{"status", kStatusBudgetExhausted}, {"reason", "the " + resource + " budget is exhausted"}});
}

}  // namespace

json StandInBanner(const CampaignState& state) {
  return {{"notice", kStandInCampaignNotice},
          {"evaluation", state.first_stand_in_activity},
          {"memory", "not written: memory learns only from measurements"},
          {"ranking", "never ranked with measurements"}};
}

Result<std::vector<Command>> Decide(const CampaignState& state, const BlobSource& blobs) {
  Round round(state, blobs);
  if (!state.started || state.finished()) return round.Take();
  if (auto deadline = WallDeadlineUs(state); deadline && state.now_us >= *deadline) {
    Exhausted(round, kBudgetWallTime);
    return round.Take();
  }
  // A test stand-in's figures (allowed by an opt-in; not measurements):
  // said once in the log; never ranked with measurements.
  if (state.stand_in_results > 0 && state.measured_results > 0) {
    round.EmitEvent(event_type::kCampaignFailed,
                    {{"reason",
                      "this campaign has both figures of a test-only stand-in (NOT measurements) and "
                      "measurements; they are never ranked together"}});
    return round.Take();
  }
  if (state.stand_in_results > 0 && !state.stand_in_noted) {
    round.EmitEvent(event_type::kStandInFiguresNoted, StandInBanner(state));
  }
  bool all_done = true;
  for (int p = 0; p < static_cast<int>(state.problems.size()); ++p) {
    if (state.problems[p].status != kStatusRunning) continue;
    all_done = false;
    ACCELOPT_RETURN_IF_ERROR(StepProblem(round, p));
  }
  if (all_done) {
    Finish(round);
  } else if (round.empty() && round.blocked() && state.in_flight == 0) {
    Exhausted(round, *round.blocked());
  }
  return round.Take();
}

}  // namespace accelopt::workflows
