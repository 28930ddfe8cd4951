// The evaluation backends of a daemon config, started: each configured
// backend probed, calibrated and constructed, with its slots, by its module
// (daemon/backend_module.hpp; RunDaemon calls StartBackends once and has no
// switch on the names). A backend that is configured but cannot evaluate
// (no nvcc, no GPU, no Neuron SDK, a failed calibration) stops the start
// with the reason: a daemon that accepted submissions it can never evaluate
// would be worse. A cpu calibration refused because the host is busy is not
// an error: the daemon serves and calibrates later (its calibrate hook,
// daemon/backends/deferred_calibration.hpp).
//
// Thread safety: StartBackends runs once, on the main thread, before the
// io_context starts; the other functions only read the started backends and
// call their hooks (thread-safe), from any thread.
#pragma once

#include <vector>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "daemon/backend_module.hpp"
#include "daemon/config.hpp"

namespace accelopt::daemon {

// Starts every backend of config.evaluators, in the modules' table order,
// each with its module's start. A name without a module is an error (the
// config's parse refuses one; a config built in code may still name one).
Result<StartedBackends> StartBackends(Env* env, const DaemonConfig& config);

// Every started backend's slots, for the Dispatcher.
std::vector<eval::Dispatcher::BackendSlots> AllSlots(const StartedBackends& started);
// The hardware facts every campaign's prompts get: each backend's facts
// hook, merged in the table's order (a top-level key an earlier backend set
// is kept: cuda's GPU calibration before triton's). Always an object.
json HardwareFacts(const StartedBackends& started);
// The calibrate hook of the backend `name`; nullptr when it has none.
BackendCalibration* CalibrationOf(const StartedBackends& started, const std::string& name);
// The first waiting backend's WaitState; null when none waits.
json CalibrationWait(const StartedBackends& started);

}  // namespace accelopt::daemon
