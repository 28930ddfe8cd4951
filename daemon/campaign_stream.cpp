#include "daemon/campaign_stream.hpp"

namespace accelopt::daemon {

bool IsRuntimeEventType(const std::string& t) {
  return t == runtime_event::kCampaignPaused || t == runtime_event::kCampaignResumed ||
         t == runtime_event::kCampaignInterrupted || t == runtime_event::kCampaignSubmitted ||
         t == runtime_event::kLlmCallWaiting || t == runtime_event::kLlmCallShortened ||
         t == runtime_event::kEvaluationPlaced;
}

void RegisterCampaignStreamTypes(store::EventTypeRegistry& registry) {
  for (const auto& t : workflows::CampaignEventTypes()) (void)registry.Register(t.name, t.schema_version);
  for (const char* t :
       {runtime_event::kCampaignPaused, runtime_event::kCampaignResumed, runtime_event::kCampaignInterrupted,
        runtime_event::kCampaignSubmitted, runtime_event::kLlmCallWaiting, runtime_event::kLlmCallShortened,
        runtime_event::kEvaluationPlaced, runtime_event::kDaemonStarted, runtime_event::kDaemonStopped,
        runtime_event::kCalibrationRecorded, runtime_event::kBaselineProfiled, runtime_event::kSideBySideMeasured})
    (void)registry.Register(t, 1);
}

workflows::Event ToWorkflowEvent(const store::EventRecord& r) {
  workflows::Event e;
  e.type = r.type;
  e.data = r.data;
  e.schema_version = r.schema_version;
  e.recorded_at_us = r.recorded_at_us;
  return e;
}

store::NewEvent ToNewEvent(const workflows::Event& e) {
  store::NewEvent n;
  n.type = e.type;
  n.schema_version = e.schema_version;
  n.data = e.data;
  return n;
}

Status ApplyRecord(workflows::CampaignState& state, const store::EventRecord& record) {
  if (IsRuntimeEventType(record.type)) return Status::Ok();
  return workflows::Apply(state, ToWorkflowEvent(record));
}

Result<workflows::CampaignState> FoldCampaignRecords(const std::vector<store::EventRecord>& records) {
  workflows::CampaignState state;
  for (const auto& r : records) {
    Status st = ApplyRecord(state, r);
    if (!st.ok()) return st.WithContext(r.stream + " version " + std::to_string(r.version));
  }
  return state;
}

}  // namespace accelopt::daemon
