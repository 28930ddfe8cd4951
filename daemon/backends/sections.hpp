// What the built-in backend modules share: the section fields of the
// host-side backends (cpu, cuda, triton) and the folder a start needs.
//
// Thread safety: pure functions (NeedDir: through the Env).
#pragma once

#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "daemon/backend_module.hpp"

namespace accelopt::daemon::backends {

// slots, the cache folder (default <state_dir>/cache/<name>), the
// calibration's patience, and the checks on them.
Status ParseHostCommon(const json& section, const std::string& where, const std::string& name, const ConfigPaths& paths,
                       BackendConfig* bc);
// devices (cuda, triton): one slot per listed GPU; slots, when given, must agree.
Status ParseGpuDevices(const json& section, const std::string& where, BackendConfig* bc);
// "executor" (cpu, nki): "local" (the default) or a Slurm cluster
// (evaluators/slurm/slurm_options.hpp); with slurm, every evaluation of the
// backend `name` is a job on a node, slots = max_jobs.
Status ParseExecutor(const json& section, const std::string& where, const std::string& name, BackendConfig* bc);
// A folder a backend needs, made if missing; the error names the config field.
Status NeedDir(Env* env, const std::string& dir, const std::string& field);

}  // namespace accelopt::daemon::backends
