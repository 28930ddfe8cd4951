// An evaluation backend as the daemon knows it: one module, a row of one
// table. ParseDaemonConfig reads "evaluators.<name>" with the row's keys and
// parse, StartBackends starts each configured backend with the row's start
// (probe, calibrate, construct: the backend, its slots, its facts for the
// prompts); the dispatcher, the API and the campaign runtime then reach it
// by name alone. The built-in rows are cpu, cuda, nki and triton
// (daemon/backends/<name>_module.cpp, listed by daemon/backends/builtin.cpp);
// RegisterBackendModule adds one more without touching any other file (a
// test's own daemon main: tests/daemon/module_daemon.cpp).
//
// The modules live in daemon/, not beside their evaluators in evaluators/:
// starting one wires daemon parts (the cpu backend's calibration gate and
// deferred calibration, the Slurm executor, the facts the prompts carry).
// What is fixed about a backend's kernels (language, file names) is its row
// of workflows/backend_traits; its prompt text its prompt set
// (workflows/backend_prompts.hpp).
//
// Thread safety: the table is built on first use; RegisterBackendModule must
// run before it (before ParseDaemonConfig or RunDaemon), on one thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "daemon/backend_config.hpp"
#include "daemon/calibration_gate.hpp"
#include "evaluators/cpu/calibration.hpp"
#include "evaluators/cpu/cpu_backend.hpp"
#include "evaluators/dispatcher.hpp"

namespace accelopt::daemon {

// What the start of every configured backend gives the daemon.
struct StartedBackends {
  std::vector<eval::Dispatcher::BackendSlots> slots;  // for the Dispatcher
  json hardware = json::object();  // the cpu calibration (ToJson); {} without one
  json nki_facts;                  // the Trainium generation's facts; null unless nki is configured
  json cuda_facts;                 // the GPU calibration; null unless cuda (or triton) is configured
  // The local cpu backend, when configured (not with a Slurm executor): the
  // gate that holds its evaluations until a calibration is accepted, and the
  // calibration procedure for a later measurement.
  std::shared_ptr<eval::cpu::CpuBackend> cpu;
  std::shared_ptr<CalibrationGate> cpu_gate;
  eval::cpu::CalibrationOptions cpu_calibration;
  std::string cpu_calibration_path;
  std::optional<std::string> cpu_refused;  // why the start's calibration was refused (busy)
  double cpu_retry_after_s = 60;
};

// Where a section's relative paths are resolved (the config file's folder)
// and the state folder a backend's default cache lives under.
struct ConfigPaths {
  std::string base_dir;
  std::string state_dir;
};

struct BackendModule {
  std::string name;            // the key under "evaluators" and the Backend's name()
  std::set<std::string> keys;  // of its section; any other key is refused by name
  // Reads the section (already checked against `keys`) into `out`, whose
  // `section` holds it as written; `where` is "evaluators.<name>".
  std::function<Status(const json& section, const std::string& where, const ConfigPaths& paths, BackendConfig* out)>
      parse;
  // Starts the configured backend: adds its slots (and facts) to `out`, or
  // says why it cannot evaluate here (the daemon then does not start).
  std::function<Status(Env* env, const std::string& name, const BackendConfig& config, StartedBackends* out)> start;
};

// The built-in modules, then the registered ones, each name once.
const std::vector<BackendModule>& BackendModules();
// The module of `name`; nullptr when there is none.
const BackendModule* FindBackendModule(const std::string& name);
// Adds a module (a name already in the table replaces that row).
void RegisterBackendModule(BackendModule module);

// The built-in rows (daemon/backends/builtin.cpp).
std::vector<BackendModule> BuiltinBackendModules();

}  // namespace accelopt::daemon
