// The table of built-in backend modules, in the order they are listed in
// errors and docs.
#include "daemon/backends/modules.hpp"

namespace accelopt::daemon {

std::vector<BackendModule> BuiltinBackendModules() {
  return {backends::CpuModule(), backends::CudaModule(), backends::NkiModule(), backends::TritonModule()};
}

}  // namespace accelopt::daemon
