#include "llm/types.hpp"

#include <type_traits>

#include "base/sha256.hpp"

namespace accelopt::llm {

const char* LlmErrorKindName(LlmErrorKind kind) {
  switch (kind) {
    case LlmErrorKind::kConfig:
      return "config";
    case LlmErrorKind::kInvalidRequest:
      return "invalid_request";
    case LlmErrorKind::kAuth:
      return "auth";
    case LlmErrorKind::kClientError:
      return "client_error";
    case LlmErrorKind::kRateLimited:
      return "rate_limited";
    case LlmErrorKind::kServerError:
      return "server_error";
    case LlmErrorKind::kNetwork:
      return "network";
    case LlmErrorKind::kTimeout:
      return "timeout";
    case LlmErrorKind::kMalformed:
      return "malformed";
    case LlmErrorKind::kEmptyReply:
      return "empty_reply";
    case LlmErrorKind::kTruncated:
      return "truncated";
    case LlmErrorKind::kTooLarge:
      return "too_large";
    case LlmErrorKind::kCancelled:
      return "cancelled";
    case LlmErrorKind::kCommandFailed:
      return "command_failed";
    case LlmErrorKind::kReplayMiss:
      return "replay_miss";
    case LlmErrorKind::kContextOverflow:
      return "context_overflow";
  }
  return "unknown";
}

std::string LlmError::ToString() const {
  std::string s = LlmErrorKindName(kind);
  if (http_status != 0) s += " (HTTP " + std::to_string(http_status) + ")";
  if (!message.empty()) s += ": " + message;
  return s;
}

std::string LlmError::Describe(const std::string& provider) const {
  std::string s = LlmErrorKindName(kind);
  if (http_status != 0) s += " (HTTP " + std::to_string(http_status) + ")";
  s += " from provider '" + provider + "'";
  // The HTTP providers already name themselves ("provider 'x': ...").
  std::string m = message;
  const std::string prefix = "provider '" + provider + "': ";
  if (m.rfind(prefix, 0) == 0) m = m.substr(prefix.size());
  if (!m.empty()) s += ": " + m;
  return s;
}

Status LlmError::ToStatus() const {
  Code code = Code::kUnavailable;  // malformed, empty, truncated, too large, command failed, network, 5xx
  switch (kind) {
    case LlmErrorKind::kConfig:
      code = Code::kFailedPrecondition;
      break;
    case LlmErrorKind::kInvalidRequest:
    case LlmErrorKind::kContextOverflow:
    case LlmErrorKind::kClientError:
      code = Code::kInvalidArgument;
      break;
    case LlmErrorKind::kAuth:
      code = Code::kPermissionDenied;
      break;
    case LlmErrorKind::kRateLimited:
      code = Code::kResourceExhausted;
      break;
    case LlmErrorKind::kTimeout:
      code = Code::kTimeout;
      break;
    case LlmErrorKind::kCancelled:
      code = Code::kCancelled;
      break;
    case LlmErrorKind::kReplayMiss:
      code = Code::kNotFound;
      break;
    default:
      break;
  }
  return Status(code, "llm: " + ToString());
}

json CanonicalRequestJson(const LlmRequest& r) {
  json j = json::object();
  j["v"] = 1;
  j["provider"] = r.provider;
  j["model"] = r.model;
  j["system"] = r.system;
  j["user"] = r.user;
  j["max_tokens"] = r.max_tokens;
  if (r.temperature) j["temperature"] = *r.temperature;
  if (r.reasoning_effort) j["reasoning_effort"] = *r.reasoning_effort;
  if (r.thinking_budget) j["thinking_budget"] = *r.thinking_budget;
  if (!r.stop.empty()) j["stop"] = r.stop;
  if (r.request_id) j["request_id"] = *r.request_id;
  return j;  // nlohmann's default object keeps keys sorted
}

std::string RequestHash(const LlmRequest& request) { return Sha256Hex(Dump(CanonicalRequestJson(request))); }

json ToJson(const LlmRequest& request) { return CanonicalRequestJson(request); }

namespace {

template <typename T>
Status Get(const json& j, const char* key, T* out, bool required) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return required ? InvalidArgument(std::string("missing field '") + key + "'") : Status::Ok();
  }
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // nlohmann converts a float with a plain cast, undefined outside T's range.
    if (!it->is_number_integer()) return InvalidArgument(std::string("field '") + key + "' must be an integer");
  }
  try {
    *out = it->get<T>();
  } catch (const json::exception&) {
    return InvalidArgument(std::string("field '") + key + "' has the wrong type");
  }
  return Status::Ok();
}

template <typename T>
Status GetOpt(const json& j, const char* key, std::optional<T>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  T v{};
  ACCELOPT_RETURN_IF_ERROR(Get(j, key, &v, true));
  *out = std::move(v);
  return Status::Ok();
}

json AttemptsJson(const std::vector<LlmAttempt>& attempts) {
  json a = json::array();
  for (const auto& at : attempts) {
    a.push_back({{"status", at.status},
                 {"error", at.error},
                 {"latency_ms", at.latency.count()},
                 {"backoff_ms", at.backoff.count()}});
  }
  return a;
}

}  // namespace

Result<LlmRequest> LlmRequest::FromJson(const json& j) {
  if (!j.is_object()) return InvalidArgument("request: not an object");
  LlmRequest r;
  ACCELOPT_RETURN_IF_ERROR(Get(j, "provider", &r.provider, false));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "model", &r.model, true));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "system", &r.system, false));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "user", &r.user, true));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "max_tokens", &r.max_tokens, false));
  ACCELOPT_RETURN_IF_ERROR(GetOpt(j, "temperature", &r.temperature));
  ACCELOPT_RETURN_IF_ERROR(GetOpt(j, "reasoning_effort", &r.reasoning_effort));
  ACCELOPT_RETURN_IF_ERROR(GetOpt(j, "thinking_budget", &r.thinking_budget));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "stop", &r.stop, false));
  ACCELOPT_RETURN_IF_ERROR(GetOpt(j, "request_id", &r.request_id));
  return r;
}

json ToJson(const LlmResponse& r) {
  return {{"text", r.text},
          {"reasoning", r.reasoning},
          {"finish_reason", r.finish_reason},
          {"model", r.model},
          {"input_tokens", r.input_tokens},
          {"output_tokens", r.output_tokens},
          {"cached_tokens", r.cached_tokens},
          {"latency_ms", r.latency.count()},
          {"attempts", AttemptsJson(r.attempts)},
          {"cost_usd", r.cost_usd},
          {"cost_known", r.cost_known},
          {"replayed", r.replayed},
          {"usage_estimated", r.usage_estimated}};
}

Result<LlmResponse> LlmResponse::FromJson(const json& j) {
  if (!j.is_object()) return InvalidArgument("response: not an object");
  LlmResponse r;
  ACCELOPT_RETURN_IF_ERROR(Get(j, "text", &r.text, true));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "reasoning", &r.reasoning, false));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "finish_reason", &r.finish_reason, false));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "model", &r.model, false));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "input_tokens", &r.input_tokens, false));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "output_tokens", &r.output_tokens, false));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "cached_tokens", &r.cached_tokens, false));
  int64_t latency_ms = 0;
  ACCELOPT_RETURN_IF_ERROR(Get(j, "latency_ms", &latency_ms, false));
  r.latency = std::chrono::milliseconds(latency_ms);
  ACCELOPT_RETURN_IF_ERROR(Get(j, "cost_usd", &r.cost_usd, false));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "cost_known", &r.cost_known, false));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "replayed", &r.replayed, false));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "usage_estimated", &r.usage_estimated, false));
  if (auto it = j.find("attempts"); it != j.end() && it->is_array()) {
    for (const auto& a : *it) {
      if (!a.is_object()) return InvalidArgument("response: attempt is not an object");
      LlmAttempt at;
      int64_t lat = 0, back = 0;
      ACCELOPT_RETURN_IF_ERROR(Get(a, "status", &at.status, false));
      ACCELOPT_RETURN_IF_ERROR(Get(a, "error", &at.error, false));
      ACCELOPT_RETURN_IF_ERROR(Get(a, "latency_ms", &lat, false));
      ACCELOPT_RETURN_IF_ERROR(Get(a, "backoff_ms", &back, false));
      at.latency = std::chrono::milliseconds(lat);
      at.backoff = std::chrono::milliseconds(back);
      r.attempts.push_back(std::move(at));
    }
  }
  return r;
}

json ToJson(const LlmError& e) {
  json j = {{"kind", LlmErrorKindName(e.kind)},
            {"retryable", e.retryable},
            {"http_status", e.http_status},
            {"message", e.message},
            {"attempts", AttemptsJson(e.attempts)}};
  if (e.partial) j["partial"] = ToJson(*e.partial);
  return j;
}

}  // namespace accelopt::llm
