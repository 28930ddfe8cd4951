// The triton backend's config section ("evaluators.triton"): its keys and
// their parse (the start: triton_module.cpp).
#include <algorithm>

#include "daemon/backends/modules.hpp"
#include "daemon/backends/sections.hpp"
#include "daemon/config_fields.hpp"

namespace accelopt::daemon::backends {
namespace {

Status ParseTriton(const json& ej, const std::string& where, const ConfigPaths& paths, BackendConfig* bc) {
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "slots", where, bc->slots));
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "python", where, bc->python));
  if (bc->python.empty() || bc->python[0] != '/' || bc->python.find_first_of(" \t\n") != std::string::npos)
    return InvalidArgument(where +
                           ".python: required, the absolute path (no spaces) of the interpreter with "
                           "torch and triton");
  ACCELOPT_RETURN_IF_ERROR(ParseGpuDevices(ej, where, bc));
  return ParseHostCommon(ej, where, "triton", paths, bc);
}

}  // namespace

BackendModule TritonSection() { return {"triton", {"slots", "cache_dir", "devices", "python"}, ParseTriton, nullptr}; }

}  // namespace accelopt::daemon::backends
