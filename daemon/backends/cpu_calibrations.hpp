// CpuCalibrations: the cpu backend's calibrate hook (BackendCalibration,
// daemon/backend_module.hpp), made by its module's start (cpu_module.cpp) —
// the retries after a start on a busy host (DeferredCalibration) and
// `acceloptctl calibrate [--force [--force-busy]]` (POST /v1/calibrate),
// one measurement at a time. Every accepted calibration is installed in the
// backend and handed to `accepted` (RunDaemon records it in the system
// stream and gives the campaigns the new hardware facts).
//
// Thread safety: every method may be called from any thread; a measurement
// holds an internal mutex (seconds) and runs with no evaluation of this
// daemon in flight (CalibrationGate::Exclusive).
#pragma once

#include "base/boost_prelude.hpp"

#include <boost/asio.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/mutex.hpp"
#include "base/status.hpp"
#include "daemon/backend_module.hpp"
#include "daemon/backends/deferred_calibration.hpp"
#include "daemon/calibration_gate.hpp"
#include "evaluators/cpu/calibration.hpp"
#include "evaluators/cpu/cpu_backend.hpp"

namespace accelopt::daemon::backends {

class CpuCalibrations : public BackendCalibration {
 public:
  struct Options {
    Env* env = nullptr;                          // not owned
    std::shared_ptr<eval::cpu::CpuBackend> cpu;  // the backend whose calibration this installs
    std::shared_ptr<CalibrationGate> gate;       // in front of `cpu`: held while none is accepted
    eval::cpu::CalibrationOptions procedure;     // the measurement, as at start
    std::string path;                            // where an accepted calibration is saved
    std::optional<std::string> refused;          // why the start's calibration was refused (busy)
    double retry_after_s = 60;                   // between retries after a refusal
  };
  explicit CpuCalibrations(Options options);
  ~CpuCalibrations() override;  // Stop()

  // The calibration in use (ToJson); null while none was accepted.
  json Recorded() const override;
  // With the start's calibration refused (busy): holds the cpu evaluations
  // and retries until a measurement is accepted. Otherwise nothing.
  void Start(boost::asio::io_context* ioc, std::function<void(const json&)> accepted) override;
  // force false: the calibration in use (kUnavailable while none was
  // accepted yet, naming the reason and the fix). force true: measure now,
  // as at start and as `accelopt-eval calibrate --force` (force_busy
  // accepts a busy machine's figures).
  Result<json> Calibrate(bool force, bool force_busy) override ACCELOPT_EXCLUDES(mu_);
  // DeferredCalibration::State() while the retries wait; null otherwise.
  json WaitState() const override;
  void Stop() override;

  // The hardware-facts hook's value: the calibration in use without the
  // busy checks' observations (which say nothing about the hardware); {}
  // while none was accepted. The CalibrationRecorded event keeps everything.
  json Facts() const;

 private:
  Options o_;
  std::function<void(const json&)> accepted_;  // set once by Start, before any measurement
  Mutex mu_;                                   // one measurement at a time (serializes work; guards no field)
  // Not guarded by mu_: set once by Start, at the daemon's start before
  // Calibrate, WaitState or Stop can be called; after that only its own
  // (thread-safe) methods are called. Stop must not take mu_: a retry's
  // measurement holds it while Stop waits for that retry.
  std::unique_ptr<DeferredCalibration> deferred_;
};

}  // namespace accelopt::daemon::backends
