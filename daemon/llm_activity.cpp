#include "daemon/llm_activity.hpp"

namespace accelopt::daemon {

Result<llm::LlmRequest> LlmRequestOf(const workflows::ActivityRequest& a) {
  const json& q = a.request;
  if (!q.is_object()) return InvalidArgument("request: not an object");
  if (!q.contains("provider") || !q["provider"].is_string()) return InvalidArgument("missing field 'provider'");
  // The activity's shape -> llm's JSON form (types.hpp, LlmRequest::FromJson).
  json j = json::object();
  for (const char* key : {"provider", "model", "system", "user", "max_tokens"}) {
    if (q.contains(key)) j[key] = q[key];
  }
  if (q.contains("temperature") && q["temperature"].is_number()) j["temperature"] = q["temperature"];
  if (q.contains("reasoning")) {
    const json& r = q["reasoning"];
    if (r.is_string()) j["reasoning_effort"] = r;
    if (r.is_number_integer()) j["thinking_budget"] = r;
  }
  j["request_id"] = a.activity_id;
  return llm::LlmRequest::FromJson(j);
}

}  // namespace accelopt::daemon
