#include "daemon/backend_module.hpp"

namespace accelopt::daemon {
namespace {

std::vector<BackendModule>& Table() {
  static std::vector<BackendModule> table = BuiltinBackendModules();
  return table;
}

}  // namespace

const std::vector<BackendModule>& BackendModules() { return Table(); }

const BackendModule* FindBackendModule(const std::string& name) {
  for (const BackendModule& m : Table())
    if (m.name == name) return &m;
  return nullptr;
}

void RegisterBackendModule(BackendModule module) {
  for (BackendModule& m : Table()) {
    if (m.name == module.name) {
      m = std::move(module);
      return;
    }
  }
  Table().push_back(std::move(module));
}

}  // namespace accelopt::daemon
