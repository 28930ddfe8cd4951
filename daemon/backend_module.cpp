#include "daemon/backend_module.hpp"

#include "base/named_rows.hpp"

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

void RegisterBackendModule(BackendModule module) { PutRowByName(Table(), std::move(module)); }

}  // namespace accelopt::daemon
