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
// deferred calibration, the Slurm executor). A started backend hands the
// daemon its slots and two hooks: its hardware facts for the prompts and
// its calibration while the daemon runs (StartedBackend); RunDaemon has no
// field or switch for any one backend. What is fixed about a backend's
// kernels (language, file names) is its row of workflows/backend_traits;
// its prompt text its prompt set (workflows/prompt_backend.hpp); a
// configured backend without either is refused at the config's parse (a
// module added with RegisterBackendModule registers both:
// RegisterBackendTraits, RegisterBackendPrompts).
//
// Thread safety: the table is built on first use; RegisterBackendModule must
// run before it (before ParseDaemonConfig or RunDaemon), on one thread.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/boost_prelude.hpp"

#include <boost/asio/io_context.hpp>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "daemon/backend_config.hpp"
#include "evaluators/dispatcher.hpp"

namespace accelopt::daemon {

// The calibrate hook: a backend that measures its hardware while the daemon
// runs (the cpu backend: the retries after a start on a busy host and
// `acceloptctl calibrate`, daemon/backends/cpu_calibrations.hpp). Made by
// the module's start; RunDaemon starts it once the io_context exists,
// records each accepted calibration in the system stream
// (CalibrationRecorded, with the backend's name) and gives the campaigns
// the new hardware facts (the backend's `facts` hook, called again).
//
// Thread safety: every method may be called from any thread.
class BackendCalibration {
 public:
  virtual ~BackendCalibration() = default;
  // The calibration in use as the system stream records it; null while none
  // was accepted.
  virtual json Recorded() const = 0;
  // Begins its work while the daemon serves; `accepted` gets every
  // calibration accepted from then on (Recorded()'s form), on the measuring
  // thread. `ioc` outlives this.
  virtual void Start(boost::asio::io_context* ioc, std::function<void(const json& calibration)> accepted) = 0;
  // POST /v1/calibrate: force false, the calibration in use (kUnavailable
  // while none was accepted, naming the reason and the fix); force true,
  // measured now (force_busy accepts a busy machine's figures).
  virtual Result<json> Calibrate(bool force, bool force_busy) = 0;
  // Its wait for an accepted calibration, shown in /v1/health and every
  // running campaign's summary ({"backend", "state", "since_us", ...}); null
  // when it is not waiting.
  virtual json WaitState() const = 0;
  // Cancels what waits and joins a measurement in progress.
  virtual void Stop() = 0;
};

// One configured backend as its module's start leaves it.
struct StartedBackend {
  std::string name;
  std::vector<eval::Dispatcher::BackendSlots> slots;  // for the Dispatcher
  // The hardware-facts hook: this backend's part of every campaign's
  // hardware facts, which the agents' prompts read
  // (workflows/prompts_<name>.cpp), as top-level keys: the cpu backend its
  // calibration's (without the busy checks' observations), nki "nki", cuda
  // and triton "cuda". Merged in the table's order, a key set by an earlier
  // module kept (HardwareFacts, backend_start.hpp). Called at start and
  // after each accepted calibration, from any thread. Null: no facts.
  std::function<json()> facts;
  // The calibrate hook; null: nothing to measure while the daemon runs.
  std::shared_ptr<BackendCalibration> calibration;
};

// What the start of every configured backend gives the daemon, in the
// modules' table order.
struct StartedBackends {
  std::vector<StartedBackend> backends;
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
  // Starts the configured backend: fills `out` (its name already set) with
  // its slots and, if it has them, its facts and calibration hooks; or says
  // why it cannot evaluate here (the daemon then does not start).
  std::function<Status(Env* env, const std::string& name, const BackendConfig& config, StartedBackend* out)> start;
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
