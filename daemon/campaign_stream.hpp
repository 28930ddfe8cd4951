// The campaign stream's seams: the event types the runtime adds to a
// campaign's stream (and to "submissions" and "system"), their registration,
// and the one conversion between the store's records and the workflow's
// events.
//
// A campaign stream holds the workflow's events (workflows/event.hpp, folded
// by workflows::Apply) and the runtime's own facts below, which the fold
// skips. Any other type in a campaign stream is a corruption.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/status.hpp"
#include "store/event.hpp"
#include "store/event_types.hpp"
#include "workflows/campaign_state.hpp"
#include "workflows/event.hpp"

namespace accelopt::daemon {

namespace runtime_event {
// In a campaign stream (docs/events.md, "Runtime events").
inline constexpr const char kCampaignPaused[] = "CampaignPaused";
inline constexpr const char kCampaignResumed[] = "CampaignResumed";
inline constexpr const char kCampaignInterrupted[] = "CampaignInterrupted";
inline constexpr const char kLlmCallWaiting[] = "LlmCallWaiting";
// A call refused as over the model's context window, sent once more with a
// shorter prompt (workflows/prompt_shorten.hpp): appended before it is sent;
// the shorter prompt's texts are blobs, so a restart sends that one, not the
// refused one again.
inline constexpr const char kLlmCallShortened[] = "LlmCallShortened";
// Where an evaluation runs outside the daemon (a Slurm job id), appended
// before the backend waits on it; handed back to the backend after a restart.
inline constexpr const char kEvaluationPlaced[] = "EvaluationPlaced";
// In the "submissions" stream.
inline constexpr const char kCampaignSubmitted[] = "CampaignSubmitted";
// In the "system" stream: daemon lifecycle, calibrations, baseline profiles,
// side-by-side re-measurements.
inline constexpr const char kDaemonStarted[] = "DaemonStarted";
inline constexpr const char kDaemonStopped[] = "DaemonStopped";
inline constexpr const char kCalibrationRecorded[] = "CalibrationRecorded";
inline constexpr const char kBaselineProfiled[] = "BaselineProfiled";
// Two kernels timed interleaved in one judge run (POST /v1/remeasure).
inline constexpr const char kSideBySideMeasured[] = "SideBySideMeasured";
inline constexpr const char kSystemStream[] = "system";
}  // namespace runtime_event

// The runtime's types that may appear in a campaign stream (the fold skips them).
bool IsRuntimeEventType(const std::string& type);

// Registers the workflow's and the runtime's event types (schema 1).
void RegisterCampaignStreamTypes(store::EventTypeRegistry& registry);

workflows::Event ToWorkflowEvent(const store::EventRecord& r);
store::NewEvent ToNewEvent(const workflows::Event& e);

// Folds one record of a campaign stream: runtime types are skipped, every
// other type goes to workflows::Apply (an unknown one is kCorruption).
Status ApplyRecord(workflows::CampaignState& state, const store::EventRecord& record);
// A whole stream from the empty state.
Result<workflows::CampaignState> FoldCampaignRecords(const std::vector<store::EventRecord>& records);

}  // namespace accelopt::daemon
