// DeferredCalibration: a daemon that starts on a busy host. When the cpu
// backend's start calibration is refused because the machine is busy (and
// there is no saved calibration of this hardware fingerprint to use), the
// daemon still starts and serves its API; cpu evaluations wait behind the
// backend's CalibrationGate (Hold) while this retries the calibration every
// `retry_after` until the machine is quiet (or `calibrate --force
// --force-busy` accepts a busy measurement, which calls Ready()).
//
// What it is doing is visible: State() {"backend": "cpu", "state":
// "waiting" | "measuring" | "ready", "since_us" (waiting since), "attempts"
// (start and retries so far), "next_attempt_us", "reason" (the last
// refusal), "fix"} in /v1/health, in every campaign's summary while it
// waits, and on the dashboard.
//
// Timers run on the Env's clocks (EnvTimer); a measurement runs on its own
// thread (it takes seconds). Thread safety: every method is thread-safe.
#pragma once

#include "base/mutex.hpp"
#include "base/boost_prelude.hpp"

#include <boost/asio.hpp>

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "daemon/calibration_gate.hpp"
#include "daemon/env_timer.hpp"

namespace accelopt::daemon::backends {

class DeferredCalibration {
 public:
  struct Options {
    Env* env = nullptr;                      // clocks; not owned
    boost::asio::io_context* ioc = nullptr;  // the retry timer; not owned
    CalibrationGate* gate = nullptr;         // held until ready; not owned
    std::chrono::nanoseconds retry_after = std::chrono::seconds(60);
    // One measurement (blocking, seconds): ok = accepted (the caller's
    // callback installs it), kUnavailable = busy again.
    std::function<Status()> measure;
  };

  // Holds the gate: evaluations wait from now on. `first_reason`: why the
  // start's calibration was refused.
  DeferredCalibration(Options options, const std::string& first_reason);
  ~DeferredCalibration();  // Stop()

  // Arms the first retry.
  void Start();
  // Cancels the timer and joins a measurement in progress.
  void Stop();
  // The calibration was installed by someone else (calibrate --force):
  // releases the gate, no more retries.
  void Ready();
  bool waiting() const;
  json State() const;

 private:
  void Arm() ACCELOPT_REQUIRES(mu_);      // the next retry's timer
  void Attempt() ACCELOPT_EXCLUDES(mu_);  // one measurement, on worker_

  Options o_;
  mutable Mutex mu_;
  std::string state_ ACCELOPT_GUARDED_BY(mu_) = "waiting";
  std::string reason_ ACCELOPT_GUARDED_BY(mu_);
  int attempts_ ACCELOPT_GUARDED_BY(mu_) = 1;
  int64_t since_us_ ACCELOPT_GUARDED_BY(mu_) = 0;
  int64_t next_attempt_us_ ACCELOPT_GUARDED_BY(mu_) = 0;
  bool stopped_ ACCELOPT_GUARDED_BY(mu_) = false;
  std::unique_ptr<EnvTimer> timer_;
  std::thread worker_;
};

}  // namespace accelopt::daemon::backends
