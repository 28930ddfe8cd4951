// The "replay" provider: answers from LLM calls already recorded (in a
// campaign's events), keyed by RequestHash(request). A miss is a
// non-retryable kReplayMiss error; a recorded response that does not parse
// is kMalformed. Replayed responses keep their recorded text and token
// counts, cost 0 (no model was paid), and have replayed = true.
//
// It does not depend on store/: the daemon passes a lookup function.
// Threading: Call() is thread-safe; one worker thread runs the lookups and
// invokes the callbacks in call order.
#pragma once

#include <memory>

#include "base/env.hpp"
#include "llm/provider.hpp"

namespace accelopt::llm {

std::unique_ptr<Provider> MakeReplayProvider(const ProviderConfig& config, Env* env, ReplayLookup lookup);

}  // namespace accelopt::llm
