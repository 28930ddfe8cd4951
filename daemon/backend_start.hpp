// The evaluation backends of a daemon config, started: each configured
// backend probed, calibrated and constructed, with its slots, by its module
// (daemon/backend_module.hpp; RunDaemon calls StartBackends once and has no
// switch on the names). A backend that is
// configured but cannot evaluate (no nvcc, no GPU, no Neuron SDK, a failed
// calibration) stops the start with the reason: a daemon that accepted
// submissions it can never evaluate would be worse. A cpu calibration
// refused because the host is busy is not an error: the daemon serves and
// calibrates later (cpu_refused; daemon/deferred_calibration.hpp).
//
// Thread safety: StartBackends runs once, on the main thread, before the
// io_context starts.
#pragma once

#include "base/env.hpp"
#include "base/status.hpp"
#include "daemon/backend_module.hpp"
#include "daemon/config.hpp"

namespace accelopt::daemon {

// Starts every backend of config.evaluators, in the config's order, each
// with its module's start. A name without a module is skipped with a
// warning (a backend not built into this daemon).
Result<StartedBackends> StartBackends(Env* env, const DaemonConfig& config);

}  // namespace accelopt::daemon
