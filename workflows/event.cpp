#include "workflows/event.hpp"

#include <algorithm>

namespace accelopt::workflows {

const std::vector<EventTypeInfo>& CampaignEventTypes() {
  namespace t = event_type;
  static const std::vector<EventTypeInfo> kTypes = {
      {t::kCampaignStarted, 1},     {t::kIterationStarted, 1},    {t::kBeamSelected, 1},
      {t::kMemoryPairsSelected, 1}, {t::kMemoryUpdated, 1},       {t::kActivityScheduled, 1},
      {t::kLlmCallCompleted, 1},    {t::kLlmCallFailed, 1},       {t::kEvaluationCompleted, 1},
      {t::kEvaluationFailed, 1},    {t::kPlanProposed, 1},        {t::kCandidateProposed, 1},
      {t::kProblemCompleted, 1},    {t::kBudgetExhausted, 1},     {t::kDeadlineReached, 1},
      {t::kCampaignCompleted, 1},   {t::kCampaignFailed, 1},      {t::kCampaignCancelled, 1},
      {t::kFixProposed, 1},         {t::kEvaluationReused, 1},    {t::kExperiencesCredited, 1},
      {t::kBestSelected, 1},        {t::kMemorySnapshotTaken, 1}, {t::kEvaluationSkipped, 1},
      {t::kStandInFiguresNoted, 1},
  };
  return kTypes;
}

bool IsCampaignEventType(const std::string& type) {
  const auto& types = CampaignEventTypes();
  return std::any_of(types.begin(), types.end(), [&](const EventTypeInfo& i) { return i.name == type; });
}

std::string CampaignStream(const std::string& campaign_id) { return "campaign-" + campaign_id; }

namespace {
json UsageJson(const LlmUsage& u) { return {{"input_tokens", u.input_tokens}, {"output_tokens", u.output_tokens}}; }
}  // namespace

Event LlmCallCompletedEvent(const std::string& activity_id, const std::string& response_sha256, const LlmUsage& usage,
                            double cost_usd, double latency_s, int attempts, const std::string& provider,
                            const std::string& model) {
  return {event_type::kLlmCallCompleted,
          {{"activity_id", activity_id},
           {"response_sha256", response_sha256},
           {"usage", UsageJson(usage)},
           {"cost_usd", cost_usd},
           {"latency_s", latency_s},
           {"attempts", attempts},
           {"provider", provider},
           {"model", model}}};
}

Event LlmCallFailedEvent(const std::string& activity_id, const std::string& error, const LlmUsage& usage,
                         double cost_usd, int attempts) {
  return {event_type::kLlmCallFailed,
          {{"activity_id", activity_id},
           {"error", error},
           {"usage", UsageJson(usage)},
           {"cost_usd", cost_usd},
           {"attempts", attempts}}};
}

Event EvaluationCompletedEvent(const std::string& activity_id, const json& result) {
  return {event_type::kEvaluationCompleted, {{"activity_id", activity_id}, {"result", result}}};
}

Event EvaluationFailedEvent(const std::string& activity_id, const std::string& error) {
  return {event_type::kEvaluationFailed, {{"activity_id", activity_id}, {"error", error}}};
}

Event MemorySnapshotTakenEvent(const std::string& activity_id, const std::string& bank, uint64_t bank_version,
                               int generation, const json& items) {
  return {event_type::kMemorySnapshotTaken,
          {{"activity_id", activity_id},
           {"bank", bank},
           {"bank_version", bank_version},
           {"generation", generation},
           {"items", items}}};
}

Event DeadlineReachedEvent() { return {event_type::kDeadlineReached, json::object()}; }

Event CampaignCancelledEvent(const std::string& reason) {
  return {event_type::kCampaignCancelled, {{"reason", reason}}};
}

}  // namespace accelopt::workflows
