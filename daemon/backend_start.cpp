#include "daemon/backend_start.hpp"

namespace accelopt::daemon {

Result<StartedBackends> StartBackends(Env* env, const DaemonConfig& config) {
  for (const auto& [name, bc] : config.evaluators) {
    if (!FindBackendModule(name)) return FailedPrecondition("evaluators." + name + ": no such backend in this daemon");
  }
  StartedBackends out;
  for (const BackendModule& module : BackendModules()) {
    auto it = config.evaluators.find(module.name);
    if (it == config.evaluators.end()) continue;
    StartedBackend b;
    b.name = module.name;
    ACCELOPT_RETURN_IF_ERROR(module.start(env, module.name, it->second, &b));
    out.backends.push_back(std::move(b));
  }
  return out;
}

std::vector<eval::Dispatcher::BackendSlots> AllSlots(const StartedBackends& started) {
  std::vector<eval::Dispatcher::BackendSlots> slots;
  for (const StartedBackend& b : started.backends) slots.insert(slots.end(), b.slots.begin(), b.slots.end());
  return slots;
}

json HardwareFacts(const StartedBackends& started) {
  json merged = json::object();
  for (const StartedBackend& b : started.backends) {
    if (!b.facts) continue;
    const json facts = b.facts();
    if (!facts.is_object()) continue;
    for (const auto& [key, value] : facts.items()) {
      if (!merged.contains(key)) merged[key] = value;
    }
  }
  return merged;
}

BackendCalibration* CalibrationOf(const StartedBackends& started, const std::string& name) {
  for (const StartedBackend& b : started.backends)
    if (b.name == name) return b.calibration.get();
  return nullptr;
}

json CalibrationWait(const StartedBackends& started) {
  for (const StartedBackend& b : started.backends) {
    if (!b.calibration) continue;
    if (json w = b.calibration->WaitState(); !w.is_null()) return w;
  }
  return nullptr;
}

}  // namespace accelopt::daemon
