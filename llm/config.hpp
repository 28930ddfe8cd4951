// Provider configuration: the "providers" section of the daemon config.
//
//   {"providers": {
//      "local": {"kind": "openai", "base_url": "http://127.0.0.1:8000/v1",
//                "api_key_env": "OPENAI_API_KEY", "max_concurrency": 16,
//                "timeouts": {"connect_ms": 10000, "total_ms": 600000, "stall_ms": 60000},
//                "retry": {"max_attempts": 6, "base_ms": 500, "cap_ms": 30000},
//                "models": {"gpt-oss-120b": {"input_per_mtok": 0.1, "output_per_mtok": 0.5,
//                                            "cached_input_per_mtok": 0.05}}}}}
//
// Parsing is strict: unknown keys and wrong types are errors that name the
// field ("providers.local.retry: unknown key 'max_atempts'"). The parsed
// config holds the *names* of secrets (env vars, files), never their values.
// Every default is written next to its field. docs/llm.md lists all keys.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::llm {

using Millis = std::chrono::milliseconds;

enum class ProviderKind { kOpenAi, kAnthropic, kBedrock, kCommand, kReplay };
const char* ProviderKindName(ProviderKind kind);  // "openai", ...
inline std::ostream& operator<<(std::ostream& os, ProviderKind k) { return os << ProviderKindName(k); }

struct Timeouts {
  Millis connect{10'000};  // TCP + TLS connect
  Millis total{600'000};   // one attempt, from start to last byte (also the command timeout)
  // No byte received for this long *after the first byte* of the response
  // (non-streaming replies send nothing while the model generates, so the
  // wait for the first byte is bounded by `total` only).
  Millis stall{60'000};
};

struct RetryPolicy {
  int max_attempts = 6;  // attempts per call, the first included; >= 1
  Millis base{500};      // full jitter: wait = uniform(0, min(cap, base * 2^(n-1)))
  Millis cap{30'000};
  // Retry-After is honoured (wait = max(jitter, Retry-After)) up to this;
  // a longer Retry-After ends the call with a retryable kRateLimited error.
  Millis max_retry_after{120'000};
};

struct ModelPrice {
  double input_per_mtok = 0;         // USD per million uncached input tokens
  double output_per_mtok = 0;        // USD per million output tokens
  double cached_input_per_mtok = 0;  // USD per million cached input tokens (default: input_per_mtok)
};

struct ProviderConfig {
  std::string name;
  ProviderKind kind = ProviderKind::kOpenAi;

  // Common to all kinds.
  int max_concurrency = 4;  // calls in flight (including their backoffs); >= 1
  Timeouts timeouts;
  RetryPolicy retry;                         // command and replay use max_attempts = 1 unless set
  std::map<std::string, ModelPrice> models;  // price table; unknown models cost 0 (cost_known=false)
  size_t max_response_bytes = 32u << 20;     // larger replies fail with kTooLarge

  // openai / anthropic / bedrock
  std::string base_url;                        // openai: required ("http://host:8000/v1"); anthropic: default
                                               // "https://api.anthropic.com"; bedrock: default
                                               // "https://bedrock-runtime.<region>.amazonaws.com"
  std::string api_key_env;                     // name of an env var holding the key
  std::string api_key_file;                    // file holding the key; relative paths are resolved against
                                               // $CREDENTIALS_DIRECTORY when set (systemd LoadCredential=)
  std::map<std::string, std::string> headers;  // extra, non-secret request headers

  // openai
  std::string max_tokens_field = "max_tokens";  // or "max_completion_tokens" (OpenAI o-series)
  json extra_body = json::object();             // merged into the request body (e.g. vLLM's
                                                // chat_template_kwargs); never overrides messages

  // anthropic
  std::string anthropic_version = "2023-06-01";

  // bedrock (credentials: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN,
  // else the profile in the shared credentials file)
  std::string region;            // default $AWS_REGION, then $AWS_DEFAULT_REGION; required
  std::string profile;           // default $AWS_PROFILE, then "default"
  std::string credentials_file;  // default $AWS_SHARED_CREDENTIALS_FILE, then ~/.aws/credentials

  // command
  std::vector<std::string> argv;           // required; argv[0] looked up in PATH
  std::string output = "text";             // "text": stdout is the reply; "json": an object
                                           // {"text", "reasoning"?, "finish_reason"?,
                                           //  "input_tokens"?, "output_tokens"?, "cached_tokens"?}
  std::map<std::string, std::string> env;  // added to the child's environment
};

// Parses one provider entry. `path` prefixes error messages ("providers.local").
Result<ProviderConfig> ParseProviderConfig(const std::string& name, const json& j, const std::string& path);

// Accepts either {"providers": {...}} or the inner name → entry object.
Result<std::vector<ProviderConfig>> ParseProvidersConfig(const json& section);

}  // namespace accelopt::llm
