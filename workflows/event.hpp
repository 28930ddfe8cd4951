// The events of a campaign: names, schema versions, and the small Event value
// the workflow folds. Every event of a campaign lives in stream
// `campaign-<id>`; docs/events.md lists each type's data fields and when it
// is appended.
//
// Type names are past tense and frozen once released. The store stamps
// `recorded_at`; the workflow never reads a clock, it only sees
// Event::recorded_at_us.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/json.hpp"

namespace accelopt::workflows {

// One event as the workflow sees it. The runtime converts store records into
// this (and back); recorded_at_us is 0 on events a workflow has just decided
// (the store fills it in when it appends).
struct Event {
  std::string type;
  json data = json::object();
  int schema_version = 1;
  int64_t recorded_at_us = 0;
};

// What the runtime registers with the store (type name + current version).
struct EventTypeInfo {
  std::string name;
  int schema_version;
};

namespace event_type {
// Appended by the runtime.
inline constexpr const char kCampaignStarted[] = "CampaignStarted";
inline constexpr const char kLlmCallCompleted[] = "LlmCallCompleted";
inline constexpr const char kLlmCallFailed[] = "LlmCallFailed";
inline constexpr const char kEvaluationCompleted[] = "EvaluationCompleted";
inline constexpr const char kEvaluationFailed[] = "EvaluationFailed";
inline constexpr const char kDeadlineReached[] = "DeadlineReached";
inline constexpr const char kCampaignCancelled[] = "CampaignCancelled";
inline constexpr const char kMemorySnapshotTaken[] = "MemorySnapshotTaken";
// Decided by the workflow (Decide returns them; the runtime appends them).
inline constexpr const char kActivityScheduled[] = "ActivityScheduled";
inline constexpr const char kIterationStarted[] = "IterationStarted";
inline constexpr const char kBeamSelected[] = "BeamSelected";
inline constexpr const char kMemoryPairsSelected[] = "MemoryPairsSelected";
inline constexpr const char kMemoryUpdated[] = "MemoryUpdated";
inline constexpr const char kPlanProposed[] = "PlanProposed";
inline constexpr const char kCandidateProposed[] = "CandidateProposed";
inline constexpr const char kProblemCompleted[] = "ProblemCompleted";
inline constexpr const char kBudgetExhausted[] = "BudgetExhausted";
inline constexpr const char kCampaignCompleted[] = "CampaignCompleted";
inline constexpr const char kCampaignFailed[] = "CampaignFailed";
// Once, when the campaign's first test stand-in figures arrive
// (Measurement::test_stand_in): the banner of a campaign whose figures are
// not measurements; from then on it learns no memory (docs/events.md).
inline constexpr const char kStandInFiguresNoted[] = "StandInFiguresNoted";
// "paper" mode only: a sample not evaluated because an earlier sample of its
// plan hit the hard timeout (docs/events.md).
inline constexpr const char kEvaluationSkipped[] = "EvaluationSkipped";
// "default" mode only.
inline constexpr const char kFixProposed[] = "FixProposed";
inline constexpr const char kEvaluationReused[] = "EvaluationReused";
inline constexpr const char kExperiencesCredited[] = "ExperiencesCredited";
inline constexpr const char kBestSelected[] = "BestSelected";
}  // namespace event_type

// Every campaign event type with its current schema version, in a stable
// order. The runtime hands this to the store's type registry.
const std::vector<EventTypeInfo>& CampaignEventTypes();

// True when `type` is one of CampaignEventTypes().
bool IsCampaignEventType(const std::string& type);

// Stream name of a campaign: "campaign-<id>".
std::string CampaignStream(const std::string& campaign_id);

// ---- Events the runtime builds after running an activity ----------------

struct LlmUsage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
};

// After a successful LLM call. `response_sha256` names the reply text, which
// the runtime stores as a blob in the same batch. cost_usd covers all attempts.
Event LlmCallCompletedEvent(const std::string& activity_id, const std::string& response_sha256, const LlmUsage& usage,
                            double cost_usd, double latency_s, int attempts, const std::string& provider,
                            const std::string& model);

// After an LLM call gave up (retries exhausted, refused, ...). `error` must be
// free of secrets. Usage/cost of the failed attempts still count.
Event LlmCallFailedEvent(const std::string& activity_id, const std::string& error, const LlmUsage& usage,
                         double cost_usd, int attempts);

// After an evaluation returned a result (any status, see docs/contracts.md).
Event EvaluationCompletedEvent(const std::string& activity_id, const json& result);

// When the evaluation machinery itself failed (no result); the candidate
// counts as failed.
Event EvaluationFailedEvent(const std::string& activity_id, const std::string& error);

// When the wall-time deadline (WallDeadlineUs) has passed and nothing else
// was appended: lets the fold see the time.
Event DeadlineReachedEvent();

// After a memory activity: what the bank held for the iteration's planners
// (the items in prompt order, at the bank's stream version and generation).
Event MemorySnapshotTakenEvent(const std::string& activity_id, const std::string& bank, uint64_t bank_version,
                               int generation, const json& items);

// A user stopped the campaign. Terminal.
Event CampaignCancelledEvent(const std::string& reason);

}  // namespace accelopt::workflows
