// CampaignState and its fold. The fold is the only way state changes: the
// runtime folds the log on start-up and every event it appends afterwards;
// Decide (campaign.hpp) folds the events it decides into a scratch copy.
//
// Per problem the state holds a list of iterations; each iteration has its
// beam (re-measured), the memory pairs it summarized, N plans per beam
// member and K candidates per plan, indexed (b * N + n) and
// ((b * N + n) * K + k).
//
// Thread safety: plain values; Apply mutates its argument.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "workflows/budget.hpp"
#include "workflows/campaign_request.hpp"
#include "workflows/event.hpp"
#include "workflows/measurement.hpp"
#include "workflows/memory_policy.hpp"
#include "workflows/problem.hpp"

namespace accelopt::workflows {

// kMemory: read a memory bank (the runtime answers with MemorySnapshotTaken).
enum class ActivityKind { kLlm, kEvaluation, kMemory };

enum class ActivityStatus { kScheduled, kCompleted, kFailed };

// What an activity is for (ActivityScheduled.purpose).
inline constexpr const char kPurposeMeasure[] = "measure";  // (re-)measure a beam member
inline constexpr const char kPurposePlan[] = "plan";
inline constexpr const char kPurposeExecute[] = "execute";
inline constexpr const char kPurposeEvaluate[] = "evaluate";  // a candidate
inline constexpr const char kPurposeSummarize[] = "summarize";
inline constexpr const char kPurposeFix[] = "fix";                         // "default": fix a failed sample
inline constexpr const char kPurposeFinalMeasure[] = "final_measure";      // "default": the best, again
inline constexpr const char kPurposeMemorySnapshot[] = "memory_snapshot";  // read the bank

inline constexpr const char kRoleEvaluator[] = "evaluator";
inline constexpr const char kRoleMemory[] = "memory";

struct ActivityRecord {
  std::string id;
  ActivityKind kind = ActivityKind::kLlm;
  std::string role;     // planner | executor | summarizer | evaluator
  std::string purpose;  // kPurpose*
  int problem = 0, iteration = 0, beam = 0, plan = 0, sample = 0, pair = 0;
  int attempt = 0;  // fix attempt (fix, evaluate); 0 = the executor's sample
  json payload;     // ActivityScheduled.payload
  Amounts reservation;
  ActivityStatus status = ActivityStatus::kScheduled;
  json completion;              // data of the completion event
  std::string response_sha256;  // LLM replies
  int64_t scheduled_at_us = 0, completed_at_us = 0;
  int64_t seq = 0;  // position of its ActivityScheduled among applied events
};

struct BeamMember {
  std::string beam_id;
  std::string source_sha256;
  std::string origin;          // candidate id, "baseline", or parent beam id (standin)
  std::string parent_beam_id;  // "" for the baseline
  bool standin = false;
  double selection_latency_us = 0;
  bool measure_scheduled = false;
  bool measured = false;
  Measurement measurement;
  // "default" mode (BeamSelected fields; empty/0/false otherwise):
  double selection_spread = 0;
  std::string normalized_sha256;
  bool carried = false;             // a parent carried over unchanged
  bool has_code_parent = false;     // false for the baseline
  std::string code_parent_beam_id;  // the member whose rewrite this code is
  double code_parent_latency_us = 0, code_parent_spread = 0;
  // The latency the iteration uses for this member: the re-measurement when
  // it is correct, else the latency it was selected with; likewise spread.
  double latency_us() const;
  double spread() const;
};

struct PlanRecord {
  bool scheduled = false;
  bool call_done = false;  // the planner call completed or failed
  bool proposed = false;
  bool ok = false;
  std::string title, description, error;
  std::vector<std::string> used_experiences;  // memory item ids ("default" mode)
};

// A version of a candidate that a fix replaced.
struct CandidateVersion {
  bool ok = false;
  std::string failure, detail, source_sha256, normalized_sha256;
  bool evaluated = false;
  std::string eval_activity;
  Measurement measurement;
};

struct CandidateRecord {
  std::string id;
  bool exec_scheduled = false;
  bool exec_done = false;  // the executor call completed or failed
  bool proposed = false;
  bool ok = false;              // usable code; evaluated next
  std::string failure, detail;  // when !ok
  std::string source_sha256;    // may be set for failed candidates too
  bool eval_scheduled = false;
  bool evaluated = false;
  Measurement measurement;
  // "default" mode. The fields above describe version `attempt` (0 = the
  // executor's sample, f = fix f); `versions` holds the replaced ones.
  int attempt = 0;
  std::string normalized_sha256;
  bool reused = false;         // the result is an earlier evaluation's
  std::string eval_activity;   // the evaluation whose result this is
  bool fix_scheduled = false;  // fix attempt + 1
  bool fix_done = false;
  std::vector<CandidateVersion> versions;
};

// "default" mode: the final best of a problem and its fresh re-measurement.
struct FinalBest {
  bool selected = false;
  json selection;  // BestSelected data
  std::string source_sha256;
  bool measure_scheduled = false;
  bool measured = false;
  std::string activity_id;
  Measurement measurement;
};

struct IterationState {
  int iteration = 0;
  bool beam_selected = false;
  std::vector<BeamMember> beam;
  bool credited = false;  // "default": ExperiencesCredited appended
  bool pairs_selected = false;
  std::vector<MemoryPair> pairs;
  std::vector<bool> pair_scheduled;
  std::vector<bool> pair_done;  // the summarizer call completed or failed
  bool memory_updated = false;
  // Memory in a bank (scope "campaign" or "bank"): the snapshot the
  // iteration's planners see.
  bool snapshot_scheduled = false;
  bool snapshot_taken = false;
  json snapshot = json::object();           // {bank, bank_version, generation, items: [ids]}
  std::vector<PlanRecord> plans;            // beam.size() * N
  std::vector<CandidateRecord> candidates;  // beam.size() * N * K
};

inline constexpr const char kStatusRunning[] = "running";
inline constexpr const char kStatusCompleted[] = "completed";
inline constexpr const char kStatusFailed[] = "failed";
// The campaign ended; some of its problems completed, at least one failed.
inline constexpr const char kStatusPartial[] = "partial";
inline constexpr const char kStatusBudgetExhausted[] = "budget_exhausted";
inline constexpr const char kStatusCancelled[] = "cancelled";

struct ProblemState {
  ProblemInfo info;
  std::vector<IterationState> iterations;
  std::vector<MemoryItem> memory;       // current memory, in prompt order (with a
                                        // bank: the iteration's snapshot)
  std::string status = kStatusRunning;  // running | completed | failed
  std::string reason;
  // "default" mode: normalized code hash -> the first evaluation activity of
  // it in the problem's completed iterations (beam measurements, then
  // candidates in (beam, plan, sample, version) order), whose result is
  // reusable. Filled when the next iteration starts.
  std::map<std::string, std::string> evaluated_code;
  FinalBest final_best;
};

struct CampaignState {
  bool started = false;
  std::string campaign_id;
  CampaignSpec spec;
  json hardware = json::object();
  std::vector<ProblemState> problems;
  std::map<std::string, ActivityRecord> activities;
  int64_t in_flight = 0;  // activities scheduled, not completed
  BudgetLedger budget;
  std::string status;              // "" before CampaignStarted, then kStatus*
  std::string reason;              // why failed/cancelled/exhausted
  std::string exhausted_resource;  // BudgetExhausted.resource
  int64_t started_at_us = 0;
  int64_t now_us = 0;  // latest recorded_at seen
  int64_t events_applied = 0;
  // Evaluation results whose figures are a test stand-in's
  // (Measurement::test_stand_in), and those that are not with a latency
  // (measurements). A campaign with stand-in figures writes no memory
  // (Round's rules); one with both fails: they are never ranked together.
  int64_t stand_in_results = 0;
  int64_t measured_results = 0;
  std::string first_stand_in_activity;  // the first stand-in result's evaluation
  bool stand_in_noted = false;          // StandInFiguresNoted appended

  bool finished() const { return started && status != kStatusRunning; }
};

// Folds one event into `state`. An unknown type, malformed data or an event
// that contradicts the state (completion of an unknown activity, a second
// completion) is kCorruption; `state` may then be partly updated and must be
// discarded.
Status Apply(CampaignState& state, const Event& event);

// Folds a whole log from the empty state.
Result<CampaignState> Fold(const std::vector<Event>& events);

// Helpers on the state's indexing.
int PlanIndex(const CampaignSpec& spec, int beam, int plan);
int CandidateIndex(const CampaignSpec& spec, int beam, int plan, int sample);

}  // namespace accelopt::workflows
