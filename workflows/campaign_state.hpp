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
#include "workflows/campaign_spec.hpp"
#include "workflows/event.hpp"
#include "workflows/memory_policy.hpp"
#include "workflows/problem.hpp"

namespace accelopt::workflows {

enum class ActivityKind { kLlm, kEvaluation };
const char* ActivityKindName(ActivityKind k);  // "llm" | "evaluation"

enum class ActivityStatus { kScheduled, kCompleted, kFailed };

// What an activity is for (ActivityScheduled.purpose).
inline constexpr const char kPurposeMeasure[] = "measure";  // (re-)measure a beam member
inline constexpr const char kPurposePlan[] = "plan";
inline constexpr const char kPurposeExecute[] = "execute";
inline constexpr const char kPurposeEvaluate[] = "evaluate";  // a candidate
inline constexpr const char kPurposeSummarize[] = "summarize";

inline constexpr const char kRoleEvaluator[] = "evaluator";

struct ActivityRecord {
  std::string id;
  ActivityKind kind = ActivityKind::kLlm;
  std::string role;     // planner | executor | summarizer | evaluator
  std::string purpose;  // kPurpose*
  int problem = 0, iteration = 0, beam = 0, plan = 0, sample = 0, pair = 0;
  json payload;         // ActivityScheduled.payload
  Amounts reservation;
  ActivityStatus status = ActivityStatus::kScheduled;
  json completion;      // data of the completion event
  std::string response_sha256;  // LLM replies
  int64_t scheduled_at_us = 0, completed_at_us = 0;
  int64_t seq = 0;  // position of its ActivityScheduled among applied events
};

// Reading of an evaluation result (docs/contracts.md).
struct Measurement {
  bool correct = false;       // status "ok" and correct, with a positive latency
  double latency_us = 0;      // latency.median_us (mean_us if no median)
  double spread = 0;          // latency.spread, the relative noise (0 if absent)
  double percent_of_peak = -1;  // -1 when unknown
  std::string status;         // result status, or "evaluation_failed"
  std::string reason;
  json profile = json::object();
};
Measurement ReadEvaluationResult(const json& result);

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
  // The latency the iteration uses for this member: the re-measurement when
  // it is correct, else the latency it was selected with.
  double latency_us() const;
};

struct PlanRecord {
  bool scheduled = false;
  bool call_done = false;  // the planner call completed or failed
  bool proposed = false;
  bool ok = false;
  std::string title, description, error;
};

struct CandidateRecord {
  std::string id;
  bool exec_scheduled = false;
  bool exec_done = false;          // the executor call completed or failed
  bool proposed = false;
  bool ok = false;                 // usable code; evaluated next
  std::string failure, detail;     // when !ok
  std::string source_sha256;       // may be set for failed candidates too
  bool eval_scheduled = false;
  bool evaluated = false;
  Measurement measurement;
};

struct IterationState {
  int iteration = 0;
  bool beam_selected = false;
  std::vector<BeamMember> beam;
  bool pairs_selected = false;
  std::vector<MemoryPair> pairs;
  std::vector<bool> pair_scheduled;
  std::vector<bool> pair_done;     // the summarizer call completed or failed
  bool memory_updated = false;
  std::vector<PlanRecord> plans;            // beam.size() * N
  std::vector<CandidateRecord> candidates;  // beam.size() * N * K
};

inline constexpr const char kStatusRunning[] = "running";
inline constexpr const char kStatusCompleted[] = "completed";
inline constexpr const char kStatusFailed[] = "failed";
inline constexpr const char kStatusBudgetExhausted[] = "budget_exhausted";
inline constexpr const char kStatusCancelled[] = "cancelled";

struct ProblemState {
  ProblemInfo info;
  std::vector<IterationState> iterations;
  std::vector<MemoryItem> memory;   // current memory, in prompt order
  std::string status = kStatusRunning;  // running | completed | failed
  std::string reason;
};

struct CampaignState {
  bool started = false;
  std::string campaign_id;
  CampaignSpec spec;
  json hardware = json::object();
  std::vector<ProblemState> problems;
  std::map<std::string, ActivityRecord> activities;
  int64_t in_flight = 0;            // activities scheduled, not completed
  BudgetLedger budget;
  std::string status;               // "" before CampaignStarted, then kStatus*
  std::string reason;               // why failed/cancelled/exhausted
  std::string exhausted_resource;   // BudgetExhausted.resource
  int64_t started_at_us = 0;
  int64_t now_us = 0;               // latest recorded_at seen
  int64_t events_applied = 0;

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
