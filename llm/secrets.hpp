// Loading API keys and AWS credentials, and scrubbing secrets from text.
//
// Every secret loaded here is passed to RegisterSecret() (base/log.hpp) at
// once, so log lines and Redact() never show it. Values are returned to the
// provider that needs them and are never stored in a config, request,
// response, event or error message. Thread-safe (reads the environment and
// files through the given Env, which must not be null).
#pragma once

#include <string>
#include <string_view>

#include "base/env.hpp"
#include "base/status.hpp"
#include "llm/config.hpp"

namespace accelopt::llm {

// The API key of an HTTP provider: from the env var `api_key_env`, else from
// the file `api_key_file` (relative paths under $CREDENTIALS_DIRECTORY when it
// is set; surrounding whitespace trimmed). Returns "" when neither is
// configured (e.g. a local vLLM server). An env var that is unset or empty,
// or an unreadable/empty file, is an error that names the variable or file
// but never shows any part of a value.
Result<std::string> LoadApiKey(Env* env, const ProviderConfig& config);

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // may be empty
};

// AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN) when set,
// else `profile` in the shared credentials file (INI format), with the
// defaults documented on ProviderConfig.
Result<AwsCredentials> LoadAwsCredentials(Env* env, const ProviderConfig& config);

// Redact() plus patterns that look like credentials even when they were not
// registered (partial keys echoed by a provider: "sk-...", "Bearer ...",
// AWS access key ids, "x-api-key: ..."). Also flattens to one line and caps
// the length at `max_len` characters (at most kMaxScrubbedLength; any input
// length is fine, the patterns only run on the part that is kept).
inline constexpr size_t kMaxScrubbedLength = 4096;
std::string ScrubSecrets(std::string_view text, size_t max_len = 600);

}  // namespace accelopt::llm
