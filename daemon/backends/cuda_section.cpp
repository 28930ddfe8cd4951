// The cuda backend's config section ("evaluators.cuda"): its keys and
// their parse (the start: cuda_module.cpp).
#include <algorithm>

#include "daemon/backends/modules.hpp"
#include "daemon/backends/sections.hpp"
#include "daemon/config_fields.hpp"

namespace accelopt::daemon::backends {
namespace {

Status ParseCuda(const json& ej, const std::string& where, const ConfigPaths& paths, BackendConfig* bc) {
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "slots", where, bc->slots));
  ACCELOPT_RETURN_IF_ERROR(ParseGpuDevices(ej, where, bc));
  return ParseHostCommon(ej, where, "cuda", paths, bc);
}

}  // namespace

BackendModule CudaSection() { return {"cuda", {"slots", "cache_dir", "devices"}, ParseCuda, nullptr}; }

}  // namespace accelopt::daemon::backends
