#include "llm/error_class.hpp"

namespace accelopt::llm {

bool FailsEveryCall(const LlmError& e) {
  switch (e.kind) {
    case LlmErrorKind::kAuth:
    case LlmErrorKind::kConfig:
      return true;
    case LlmErrorKind::kClientError:
      return e.http_status == 404;
    default:
      return false;
  }
}

std::string FixForEveryCallError(const LlmError& e) {
  if (!FailsEveryCall(e)) return "";
  if (e.kind == LlmErrorKind::kConfig) {
    return "fix the provider's entry in the daemon config (providers.<name>) and submit again";
  }
  if (e.http_status == 403) {
    return "give the API key access to this model (or use a key that has it), then submit again";
  }
  if (e.http_status == 404) {
    return "check the provider's base_url and the role's model id (the server does not know them), then submit again";
  }
  return "set a valid API key for the provider (api_key_env or api_key_file in the daemon config), "
         "restart the daemon and submit again";
}

}  // namespace accelopt::llm
