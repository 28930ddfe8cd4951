// Value types of the LLM client layer: a request, a response, a typed error,
// and the stable hash of a request.
//
// These are plain values (copyable, not synchronized). Nothing in them ever
// holds an API key: keys live only inside the providers that load them.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::llm {

// One chat call: a system prompt and one user message (the agents of the
// AccelOpt loop use no tools and no multi-turn history).
struct LlmRequest {
  std::string provider;               // name of a provider in the ProviderSet config
  std::string model;                  // provider's model id, e.g. "gpt-oss-120b"
  std::string system;                 // system prompt (may be empty)
  std::string user;                   // the user message
  std::optional<double> temperature;  // unset: provider default
  int max_tokens = 4096;              // output token limit; REQUIRES > 0
  // OpenAI-style "low" | "medium" | "high" (openai: reasoning_effort; bedrock
  // and anthropic ignore it unless thinking_budget is also unset, see docs).
  std::optional<std::string> reasoning_effort;
  // Anthropic/Bedrock extended thinking budget in tokens (>= 1024 for
  // Anthropic); openai ignores it.
  std::optional<int> thinking_budget;
  std::vector<std::string> stop;  // stop sequences
  // Distinguishes otherwise identical requests (e.g. the activity id of the
  // k-th executor sample at temperature > 0). Part of RequestHash; never sent
  // to the model.
  std::optional<std::string> request_id;

  // The form ToJson writes; kInvalidArgument on a wrong shape.
  static Result<LlmRequest> FromJson(const json& j);
};

// One HTTP (or process) attempt of a call, reported so the caller can record it.
struct LlmAttempt {
  int status = 0;                        // HTTP status; 0 when none (network error, command, replay)
  std::string error;                     // scrubbed one-line reason; empty when the attempt succeeded
  std::chrono::milliseconds latency{0};  // duration of this attempt
  std::chrono::milliseconds backoff{0};  // wait before this attempt (0 for the first)
};

struct LlmResponse {
  std::string text;       // the assistant's reply; never empty in a success
  std::string reasoning;  // reasoning / thinking text when the provider returns it
  // Normalized: "stop" (natural end or stop sequence), "length",
  // "content_filter", or the provider's own word for anything else.
  std::string finish_reason;
  std::string model;                     // the model the server says answered (may differ from the request)
  int64_t input_tokens = 0;              // all prompt tokens, cached ones included
  int64_t output_tokens = 0;             // completion tokens, reasoning included
  int64_t cached_tokens = 0;             // prompt tokens served from a cache (subset of input_tokens)
  std::chrono::milliseconds latency{0};  // from Call() to the result, backoffs and queueing included
  std::vector<LlmAttempt> attempts;      // every attempt, the successful one last
  double cost_usd = 0;                   // from the provider's price table; 0 when unpriced or replayed
  bool cost_known = false;               // the model had a price entry
  bool replayed = false;                 // answered by the replay provider from a recorded call
  // The reply carried no usage: the token counts (and so the cost) are an
  // estimate (llm/pricing.hpp, EstimateMissingUsage).
  bool usage_estimated = false;

  // The form ToJson writes; kInvalidArgument on a wrong shape.
  static Result<LlmResponse> FromJson(const json& j);
};

enum class LlmErrorKind {
  kConfig,          // provider misconfigured or unknown (never retryable)
  kInvalidRequest,  // the request itself is wrong (e.g. max_tokens <= 0)
  kAuth,            // 401 / 403 or missing credentials
  kClientError,     // another 4xx (400, 404, 413, 422, ...)
  kRateLimited,     // 429 after all retries
  kServerError,     // 5xx / 408 after all retries
  kNetwork,         // connection refused/reset, DNS, TLS, after all retries
  kTimeout,         // connect/total/stall timeout after all retries, or command timeout
  kMalformed,       // 2xx with a body that is not the expected JSON
  kEmptyReply,      // 2xx with no text
  kTruncated,       // the reply was cut off by max_tokens (finish_reason "length")
  kTooLarge,        // the reply exceeded max_response_bytes
  kCancelled,       // cancelled by the caller or provider shutdown
  kCommandFailed,   // the command provider's program exited non-zero / was killed
  kReplayMiss,      // replay: no recorded response for the request hash
  // The prompt does not fit the model's context window (llama.cpp, vLLM and
  // OpenAI answer 400 with a message about the context); never retried as
  // is: the workflow may shorten the prompt (fewer memory items, no profile).
  kContextOverflow,
};

// Stable lower_snake name ("rate_limited"), used in events and metrics.
const char* LlmErrorKindName(LlmErrorKind kind);
inline std::ostream& operator<<(std::ostream& os, LlmErrorKind k) { return os << LlmErrorKindName(k); }

struct LlmError {
  LlmErrorKind kind = LlmErrorKind::kNetwork;
  // True when sending the same request again later may succeed (rate limits,
  // server errors, network, timeouts). The transport has already retried
  // these with backoff up to the provider's max_attempts.
  bool retryable = false;
  int http_status = 0;  // the last attempt's HTTP status, 0 if none
  std::string message;  // scrubbed of secrets, one line, at most ~600 chars
  std::vector<LlmAttempt> attempts;
  // When the provider answered but the answer was unusable (kTruncated,
  // kEmptyReply): what it returned, with token counts and cost, since those
  // tokens were paid for.
  std::optional<LlmResponse> partial;

  // "rate_limited (HTTP 429): ..." — for logs; already scrubbed.
  std::string ToString() const;
  // "auth (HTTP 401) from provider 'local': ..." — for events and reasons.
  std::string Describe(const std::string& provider) const;
  Status ToStatus() const;
};

// Either a response or an error.
class LlmResult {
 public:
  LlmResult(LlmResponse r) : response_(std::move(r)) {}  // NOLINT
  LlmResult(LlmError e) : error_(std::move(e)) {}        // NOLINT
  bool ok() const { return response_.has_value(); }
  // REQUIRES: ok()
  const LlmResponse& response() const { return *response_; }
  LlmResponse& response() { return *response_; }
  // REQUIRES: !ok()
  const LlmError& error() const { return *error_; }
  LlmError& error() { return *error_; }

 private:
  std::optional<LlmResponse> response_;
  std::optional<LlmError> error_;
};

// Canonical JSON of everything in the request that affects the reply (keys
// sorted, unset optionals omitted, with a format version "v"). Contains no
// secrets: requests never hold any.
json CanonicalRequestJson(const LlmRequest& request);

// Lower-case hex sha256 of Dump(CanonicalRequestJson(request)). Stable across
// runs and builds; the replay provider and the event log key on it.
std::string RequestHash(const LlmRequest& request);

// Round-trippable JSON forms, for events and the replay provider.
json ToJson(const LlmRequest& request);
json ToJson(const LlmResponse& response);
json ToJson(const LlmError& error);

}  // namespace accelopt::llm
