// The evaluation backends of a daemon config, started: each configured
// backend probed, calibrated and constructed, with its slots (one starter
// per backend name in a table, backend_start.cpp; RunDaemon calls
// StartBackends once and has no switch on the names). A backend that is
// configured but cannot evaluate (no nvcc, no GPU, no Neuron SDK, a failed
// calibration) stops the start with the reason: a daemon that accepted
// submissions it can never evaluate would be worse. A cpu calibration
// refused because the host is busy is not an error: the daemon serves and
// calibrates later (cpu_refused; daemon/deferred_calibration.hpp).
//
// Thread safety: StartBackends runs once, on the main thread, before the
// io_context starts.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "daemon/calibration_gate.hpp"
#include "daemon/config.hpp"
#include "evaluators/cpu/calibration.hpp"
#include "evaluators/cpu/cpu_backend.hpp"
#include "evaluators/dispatcher.hpp"

namespace accelopt::daemon {

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

// Starts every backend of config.evaluators, in the config's order. An
// unknown name is skipped with a warning (a backend not built here).
Result<StartedBackends> StartBackends(Env* env, const DaemonConfig& config);

}  // namespace accelopt::daemon
