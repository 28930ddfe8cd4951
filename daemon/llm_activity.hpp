// The one adapter between the workflows' LLM activities and llm/: an
// activity's recorded request (workflows::ActivityRequest with kind kLlm,
// built by the campaign's Decide or the re-distillation's DecideRedistill)
// becomes the llm::LlmRequest that is sent. Both runners
// (campaign_runner.hpp, redistiller.hpp) send their calls through it, so a
// recorded request means the same call (and RequestHash) in both.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include "base/status.hpp"
#include "llm/types.hpp"
#include "workflows/campaign.hpp"

namespace accelopt::daemon {

// The request of activity `a`: its request {provider, model, system, user,
// temperature, max_tokens, reasoning} (reasoning: a string is the reasoning
// effort, an integer the thinking budget, anything else the provider's
// default; a temperature that is not a number is the provider's default),
// read by llm::LlmRequest::FromJson, with the activity's id as request id.
// kInvalidArgument naming the field when the request is malformed (no
// provider, model or user).
Result<llm::LlmRequest> LlmRequestOf(const workflows::ActivityRequest& a);

}  // namespace accelopt::daemon
