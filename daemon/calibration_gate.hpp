// CalibrationGate: keeps evaluations and a calibration of the same machine
// apart. The daemon registers its cpu backend in the dispatcher wrapped in a
// gate; `calibrate --force` takes the gate exclusively: it waits (bounded)
// for the running evaluations to finish, and evaluations that start
// meanwhile wait until the calibration is over. Otherwise a calibration
// measured under a running evaluation is low (refused as busy), and the
// evaluation's timings are disturbed by the calibration. Hold() keeps
// evaluations waiting while the daemon has no accepted calibration.
//
// Thread safety: every method is thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>

#include "base/mutex.hpp"
#include "evaluators/backend.hpp"

namespace accelopt::daemon {

class CalibrationGate : public eval::Backend {
 public:
  explicit CalibrationGate(std::shared_ptr<eval::Backend> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }
  json Health() override { return inner_->Health(); }

  eval::EvalResult Evaluate(const eval::EvalRequest& request, const std::atomic<bool>* cancel) override {
    {
      MutexLock lock(&mu_);
      while (calibrating_ || held_) {
        if (cancel && cancel->load()) return eval::EvalResult::Failure(eval::EvalStatus::kCancelled, "cancelled");
        lock.WaitFor(&cv_, std::chrono::milliseconds(100));
      }
      ++running_;
    }
    struct Done {
      CalibrationGate* g;
      ~Done() { g->Finished(); }
    } done{this};
    return inner_->Evaluate(request, cancel);
  }

  // Runs fn() with no evaluation running. Waits at most `wait` for the
  // running ones; returns false (fn not run) when they did not finish, with
  // *still_running set. New evaluations wait while this is in progress.
  template <typename Fn>
  bool Exclusive(std::chrono::milliseconds wait, Fn&& fn, int* still_running = nullptr) {
    {
      MutexLock lock(&mu_);
      while (calibrating_) lock.Wait(&cv_);  // one calibration at a time
      calibrating_ = true;
      const auto deadline = std::chrono::steady_clock::now() + wait;
      while (running_ > 0 && lock.WaitUntil(&cv_, deadline)) {
      }
      if (running_ > 0) {
        if (still_running) *still_running = running_;
        calibrating_ = false;
        cv_.notify_all();
        return false;
      }
    }
    struct Reopen {
      CalibrationGate* g;
      ~Reopen() { g->Reopened(); }
    } reopen{this};
    fn();
    return true;
  }

  // While held (no accepted calibration yet: daemon/backends/deferred_calibration.hpp)
  // evaluations wait as during a calibration; Exclusive still runs.
  void Hold(bool held) ACCELOPT_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    held_ = held;
    cv_.notify_all();
  }

  int Running() const ACCELOPT_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return running_;
  }

 private:
  void Finished() ACCELOPT_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    --running_;
    cv_.notify_all();
  }
  void Reopened() ACCELOPT_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    calibrating_ = false;
    cv_.notify_all();
  }

  std::shared_ptr<eval::Backend> inner_;
  mutable Mutex mu_;
  std::condition_variable cv_;
  int running_ ACCELOPT_GUARDED_BY(mu_) = 0;
  bool calibrating_ ACCELOPT_GUARDED_BY(mu_) = false;
  bool held_ ACCELOPT_GUARDED_BY(mu_) = false;
};

}  // namespace accelopt::daemon
