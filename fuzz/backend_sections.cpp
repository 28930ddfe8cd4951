// The fuzz build's table of backend modules: each built-in backend's config
// section (keys and parse) without its start, so that config_fuzz parses
// "evaluators" exactly as the daemon does without building any backend
// (daemon/backends/modules.hpp). The daemon's own table is
// daemon/backends/builtin.cpp.
#include "daemon/backends/modules.hpp"

namespace accelopt::daemon {

std::vector<BackendModule> BuiltinBackendModules() {
  return {backends::CpuSection(), backends::CudaSection(), backends::NkiSection(), backends::TritonSection()};
}

}  // namespace accelopt::daemon
