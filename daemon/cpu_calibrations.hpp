// CpuCalibrations: the cpu backend's calibrations while the daemon runs —
// the retries after a start on a busy host (DeferredCalibration) and
// `acceloptctl calibrate [--force [--force-busy]]` (POST /v1/calibrate),
// one measurement at a time. Every accepted calibration is installed in the
// backend and handed to `accepted` (RunDaemon records it in the system
// stream and gives the campaigns the new hardware facts).
//
// Thread safety: Calibrate, WaitState and Stop may be called from any
// thread; a measurement holds an internal mutex (seconds) and runs with no
// evaluation of this daemon in flight (CalibrationGate::Exclusive).
#pragma once

#include "base/boost_prelude.hpp"

#include <boost/asio.hpp>
#include <functional>
#include <memory>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/mutex.hpp"
#include "base/status.hpp"
#include "daemon/backend_start.hpp"
#include "daemon/deferred_calibration.hpp"

namespace accelopt::daemon {

class CpuCalibrations {
 public:
  // `backends` (the cpu parts: backend, gate, procedure, the start's
  // refusal) and `ioc` outlive this. `accepted` gets each calibration
  // accepted after the start (ToJson form), on the measuring thread.
  CpuCalibrations(Env* env, boost::asio::io_context* ioc, const StartedBackends* backends,
                  std::function<void(const json&)> accepted);
  ~CpuCalibrations();  // Stop()

  // With the start's calibration refused (busy): holds the cpu evaluations
  // and retries until a measurement is accepted. Otherwise nothing.
  void StartRetriesIfRefused();
  // force false: the calibration in use (kUnavailable while none was
  // accepted yet, naming the reason and the fix). force true: measure now,
  // as at start and as `accelopt-eval calibrate --force` (force_busy
  // accepts a busy machine's figures). kNotFound without a cpu backend.
  Result<json> Calibrate(bool force, bool force_busy) ACCELOPT_EXCLUDES(mu_);
  // DeferredCalibration::State() while the retries wait; null otherwise.
  json WaitState() const;
  void Stop();

 private:
  Env* env_;
  boost::asio::io_context* ioc_;
  const StartedBackends* be_;
  std::function<void(const json&)> accepted_;
  Mutex mu_;  // one measurement at a time (serializes work; guards no field)
  // Not guarded by mu_: set once by StartRetriesIfRefused, at the daemon's
  // start before Calibrate, WaitState or Stop can be called; after that only
  // its own (thread-safe) methods are called. Stop must not take mu_: a
  // retry's measurement holds it while Stop waits for that retry.
  std::unique_ptr<DeferredCalibration> deferred_;
};

}  // namespace accelopt::daemon
