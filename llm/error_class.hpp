// Which LLM errors fail every call to a provider: the class of error that
// neither a retry nor waiting nor the next request will heal, so a campaign
// stops at the first one instead of spending its iterations on it.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "llm/types.hpp"

namespace accelopt::llm {

// True for errors that say the provider (or the model) refuses every call:
// kAuth (HTTP 401/403, missing credentials), kConfig (the provider is
// misconfigured or unknown) and HTTP 404 (no such model or endpoint).
// False for everything that depends on the request (400, 413, 422, a
// malformed or truncated reply) or can heal by waiting (network, timeouts,
// 429, 5xx: those are retried and waited out).
bool FailsEveryCall(const LlmError& e);

// What the person running it should change for such an error, one sentence
// ("set the provider's API key (api_key_env or api_key_file) ..."); "" for
// errors FailsEveryCall is false for. Never contains secrets.
std::string FixForEveryCallError(const LlmError& e);

}  // namespace accelopt::llm
