#include "daemon/backend_start.hpp"

#include "base/log.hpp"

namespace accelopt::daemon {

Result<StartedBackends> StartBackends(Env* env, const DaemonConfig& config) {
  StartedBackends out;
  for (const auto& [name, bc] : config.evaluators) {
    const BackendModule* module = FindBackendModule(name);
    if (!module) {
      LogWarning("evaluator backend '" + name + "' is not built into this daemon; skipped");
      continue;
    }
    ACCELOPT_RETURN_IF_ERROR(module->start(env, name, bc, &out));
  }
  return out;
}

}  // namespace accelopt::daemon
