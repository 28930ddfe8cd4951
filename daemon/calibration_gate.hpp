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
#include <mutex>

#include "evaluators/backend.hpp"

namespace accelopt::daemon {

class CalibrationGate : public eval::Backend {
 public:
  explicit CalibrationGate(std::shared_ptr<eval::Backend> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }

  eval::EvalResult Evaluate(const eval::EvalRequest& request, const std::atomic<bool>* cancel) override {
    {
      std::unique_lock lock(mu_);
      while (calibrating_ || held_) {
        if (cancel && cancel->load()) return eval::EvalResult::Failure(eval::EvalStatus::kCancelled, "cancelled");
        cv_.wait_for(lock, std::chrono::milliseconds(100));
      }
      ++running_;
    }
    struct Done {
      CalibrationGate* g;
      ~Done() {
        std::lock_guard lock(g->mu_);
        --g->running_;
        g->cv_.notify_all();
      }
    } done{this};
    return inner_->Evaluate(request, cancel);
  }

  // Runs fn() with no evaluation running. Waits at most `wait` for the
  // running ones; returns false (fn not run) when they did not finish, with
  // *still_running set. New evaluations wait while this is in progress.
  template <typename Fn>
  bool Exclusive(std::chrono::milliseconds wait, Fn&& fn, int* still_running = nullptr) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !calibrating_; });  // one calibration at a time
    calibrating_ = true;
    bool idle = cv_.wait_for(lock, wait, [&] { return running_ == 0; });
    if (!idle) {
      if (still_running) *still_running = running_;
      calibrating_ = false;
      cv_.notify_all();
      return false;
    }
    lock.unlock();
    struct Reopen {
      CalibrationGate* g;
      ~Reopen() {
        std::lock_guard lock(g->mu_);
        g->calibrating_ = false;
        g->cv_.notify_all();
      }
    } reopen{this};
    fn();
    return true;
  }

  // While held (no accepted calibration yet: daemon/deferred_calibration.hpp)
  // evaluations wait as during a calibration; Exclusive still runs.
  void Hold(bool held) {
    std::lock_guard lock(mu_);
    held_ = held;
    cv_.notify_all();
  }

  int Running() const {
    std::lock_guard lock(mu_);
    return running_;
  }

 private:
  std::shared_ptr<eval::Backend> inner_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int running_ = 0;
  bool calibrating_ = false;
  bool held_ = false;
};

}  // namespace accelopt::daemon
