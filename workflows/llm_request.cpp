#include "workflows/llm_request.hpp"

namespace accelopt::workflows {

json LlmRequestJson(const RoleSpec& role, const ChatPrompt& prompt) {
  return {{"provider", role.provider},
          {"model", role.model},
          {"temperature", role.temperature},
          {"max_tokens", role.max_tokens},
          {"reasoning", role.reasoning},
          {"system", prompt.system},
          {"user", prompt.user}};
}

}  // namespace accelopt::workflows
