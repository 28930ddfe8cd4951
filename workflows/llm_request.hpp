// The request an LLM activity carries (ActivityRequest::request of a kLlm
// activity, which daemon/llm_activity.hpp turns into an llm::LlmRequest):
// the role's provider, model, temperature, max_tokens and reasoning, and the
// prompt's system and user text. One builder for the campaign's decider
// (decide_round.cpp) and re-distillation (redistill.cpp), so both ask in the
// same shape and the replay index matches either.
//
// Pure function; thread-safe.
#pragma once

#include "base/json.hpp"
#include "workflows/campaign_request.hpp"
#include "workflows/prompts.hpp"

namespace accelopt::workflows {

json LlmRequestJson(const RoleSpec& role, const ChatPrompt& prompt);

}  // namespace accelopt::workflows
