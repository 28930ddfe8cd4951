// The campaign workflow: start, decide, resume. Pure and deterministic: no
// I/O, no clock, no threads; randomness from the recorded seed and the
// activity id (rng.hpp); time only from Event::recorded_at_us.
//
// The runtime's loop (daemon/):
//
//   cmd = StartCampaign(id, spec, sources, hardware, check)    // once
//   put cmd.blobs; append cmd.event; state = Fold(log)
//   for a in PendingActivities(state, blobs): start a          // after a restart
//   until state.finished():
//     while (cmds = Decide(state, blobs)) is not empty:        // rounds
//       for c in cmds (in order):
//         put c.blobs; append c.event (blobs and event may share one batch,
//         a round may be one batch); Apply(state, c.event);
//         if c.run: start c.run (bounded concurrency)
//     wait for an activity to finish; append its completion (reply blob +
//     LlmCallCompletedEvent, EvaluationCompletedEvent, ...); Apply it
//
// Decide returns one round: every step that is possible on the state as
// given, each item (beam member, plan, sample, pair) moving at most one step
// (e.g. CandidateProposed in one round, its evaluation in the next). It does
// not copy the state, so a round costs time in the size of the current
// iterations, not of the campaign's history.
//
// Commands must be appended in the order Decide returns them, and a round's
// commands all appended before the next Decide. Decide never returns an
// ActivityScheduled for an activity the state already holds: after a
// restart, whatever was scheduled but not completed is re-run from
// PendingActivities (same id, so it is recognizably the same activity), and a
// completed LLM call is never repeated (its reply is in the log). Calling
// Decide twice on the same state returns the same commands.
//
// When the campaign has finished (state.finished()), Decide returns nothing;
// the runtime should cancel whatever is still running (wall-time budget,
// cancellation) and may still append the completions of calls that finish,
// so their cost is counted.
//
// Search modes. "paper" is the published loop. "default" adds, all decided
// here and recorded as events (docs/events.md):
//  * elitism and noise-aware ranking in the beam (DefaultBeamPolicy);
//  * de-duplication: a sample's code, normalized (normalize.hpp), that was
//    evaluated before is not evaluated again: EvaluationReused names the
//    evaluation whose result it takes. To stay deterministic whatever order
//    replies arrive in, a sample looks only at (in this order) its own
//    earlier versions, the iteration's beam measurements, the first versions
//    of the samples before it in (beam, plan, sample) order — it waits until
//    those are proposed — and the evaluations of earlier iterations;
//  * the fixer: a compile error, wrong result, runtime error or timeout goes
//    back to the executor (FixPrompt) up to FixAttempts(spec) times per
//    sample; each fixed version is proposed (FixProposed) and evaluated or
//    reused like the first; the sample's result is its last version's;
//  * noise-aware memory pairs, the summarizer told the real speedup, "No
//    optimization found" summaries dropped, planners naming the experiences
//    they used; an experience is credited (ExperiencesCredited) when a plan
//    that used it produced a child faster than its parent beyond noise, and
//    memory keeps the most credited, then newest items;
//  * after the last iteration the best kernel (BestSelected: the fastest of
//    the last beam and its correct children) is re-measured in a fresh
//    evaluation before ProblemCompleted.
// "paper" never fixes, whatever search.fix_attempts says (FixAttempts).
// "sampling" is repeated sampling, the baseline for "does search beat
// sampling at the same spend": default's rules without search, memory or
// planner (ModeRules::restart_from_baseline, memory, ask_planner,
// best_of_all_iterations): each iteration samples the baseline N x K
// times with one fixed plan, until T or the budget ends it.
// Each difference is one named rule (ModeRules, mode_rules.hpp); the files
// of Decide are listed at the top of decide.cpp.
//
// Memory in a bank (spec.memory.scope "campaign" or "bank", either mode):
// each iteration, once its memory is updated (iteration 0: at once), a
// memory activity reads the bank (MemorySnapshotTaken) and the planners see
// that snapshot; MemoryUpdated's new items and ExperiencesCredited's credits
// also go to the bank as side events (MemoryItemsAdded, MemoryItemsCredited)
// in the same batch. Eviction is the bank's selection (SelectForPrompt),
// not MemoryUpdated.retained.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "workflows/beam.hpp"
#include "workflows/blob_source.hpp"
#include "workflows/campaign_request.hpp"
#include "workflows/campaign_state.hpp"
#include "workflows/event.hpp"
#include "workflows/memory_policy.hpp"
#include "workflows/problem.hpp"

namespace accelopt::workflows {

struct Blob {
  std::string sha256;
  std::string content;
};

// An activity for the runtime to run.
//  kLlm:        request = {"provider", "model", "temperature", "max_tokens",
//                          "reasoning", "system", "user"}
//  kEvaluation: request = {"backend", "problem" (the problem id, e.g.
//                          "suites/cpu/silu"), "source", "settings"}
//               (docs/contracts.md)
//  kMemory:     request = {"bank", "problem" (id), "limit"}: read the bank's
//               current state and answer with MemorySnapshotTakenEvent
//               holding SelectForPrompt(bank, problem, limit) (memory_bank.hpp)
// Its completion is appended with LlmCallCompletedEvent/LlmCallFailedEvent,
// EvaluationCompletedEvent/EvaluationFailedEvent or MemorySnapshotTakenEvent
// (event.hpp).
struct ActivityRequest {
  std::string activity_id;
  ActivityKind kind = ActivityKind::kLlm;
  std::string role;
  json request;
};

// An event for another stream (a memory bank), appended at any version in
// the same atomic batch as the command's own event.
struct SideEvent {
  std::string stream;
  Event event;
};

// One decision: store `blobs`, append `event` to the campaign's stream (and
// `side_events` to theirs, in the same batch), and then, when `run` is set
// (the event is ActivityScheduled), run it.
struct Command {
  Event event;
  std::vector<Blob> blobs;
  std::vector<SideEvent> side_events;
  std::optional<ActivityRequest> run;
};

// The first command of a campaign: CampaignStarted, with the problems'
// reference and baseline texts as blobs. Everything is checked before
// anything runs: Validate(spec, check_model); `campaign_id` non-empty from
// [A-Za-z0-9._-]; every spec problem present in `sources` (else
// "unknown problem"); each problem well-formed with a baseline that defines
// its function; the budget large enough for the first steps (one evaluation
// per problem, the first planner call) — else kInvalidArgument/kNotFound/
// kResourceExhausted naming what is wrong. `hardware` is the backend's facts
// (JSON object) shown to the agents.
Result<Command> StartCampaign(const std::string& campaign_id, const CampaignSpec& spec,
                              const std::vector<ProblemSource>& sources, const json& hardware,
                              const ModelCheck& check_model = {});

// The next round of decisions; see the loop above. kCorruption when a needed
// blob is missing from `blobs`. A campaign whose evaluations returned a test
// stand-in's figures (Measurement::test_stand_in: allowed only by an
// explicit opt-in, never measurements) gets StandInFiguresNoted once
// (StandInBanner) and learns no memory from then on; one that has both
// stand-in figures and measurements fails: they are never ranked together.
Result<std::vector<Command>> Decide(const CampaignState& state, const BlobSource& blobs);

// The banner of a campaign with a test stand-in's figures (the data of
// StandInFiguresNoted; the report's "test_stand_in").
inline constexpr char kStandInCampaignNotice[] =
    "TEST STAND-IN FIGURES: this campaign's evaluations came from a test-only stand-in (tests/fakes/nki), NOT from "
    "the hardware; they are not measurements";
json StandInBanner(const CampaignState& state);

// Activities scheduled but not completed, in scheduling order, with their
// requests rebuilt from the log (prompts from blobs). Empty once the
// campaign has finished: nothing of a finished campaign is re-run.
Result<std::vector<ActivityRequest>> PendingActivities(const CampaignState& state, const BlobSource& blobs);

// When the wall-time budget ends (started_at + max_wall_s), if there is one.
// The runtime arms a timer and appends DeadlineReachedEvent() when it fires,
// so that Decide sees the time and ends the campaign.
std::optional<int64_t> WallDeadlineUs(const CampaignState& state);

// The memory bank a campaign reads and writes: "" for scope "problem",
// "campaign-<id>" for scope "campaign", the named bank for scope "bank".
std::string MemoryBankOf(const CampaignState& state);

// The search policies of a mode ("paper" or "default"). REQUIRES: a known mode.
const BeamPolicy& BeamPolicyFor(const std::string& mode);
const MemoryPolicy& MemoryPolicyFor(const std::string& mode);

// The (parent, plan) groups of an iteration, as the policies see them.
std::vector<Group> BuildGroups(const CampaignSpec& spec, const IterationState& it);

// Deterministic ids (the campaign id is the prefix of every id):
//   <c>/p<p>/it<i>/beam/b<b>            beam member
//   <c>/p<p>/it<i>/measure/b<b>         (re-)measurement of a beam member
//   <c>/p<p>/it<i>/plan/b<b>/n<n>       planner call
//   <c>/p<p>/it<i>/exec/b<b>/n<n>/k<k>  executor call
//   <c>/p<p>/it<i>/cand/b<b>/n<n>/k<k>  candidate
//   <c>/p<p>/it<i>/eval/b<b>/n<n>/k<k>  candidate evaluation
//   <c>/p<p>/it<i>/summ/m<m>            summarizer call for pair m
//   <c>/p<p>/it<i>/mem/m<m>             memory item from pair m
//   <c>/p<p>/it<i>/memsnap              memory bank snapshot (bank scopes)
// "default" mode adds:
//   <c>/p<p>/it<i>/fix/b<b>/n<n>/k<k>/f<f>   fix attempt f (1..F) of a sample
//   <c>/p<p>/it<i>/eval/b<b>/n<n>/k<k>/f<f>  evaluation of the fixed version f
//   <c>/p<p>/it<T-1>/final                   fresh re-measurement of the final best
std::string IterationPrefix(const std::string& campaign_id, int problem, int iteration);

}  // namespace accelopt::workflows
