// Cancellation of one call: a flag the caller can set through a CallHandle,
// optionally combined with an external std::atomic<bool> the caller owns.
// Thread-safe (the wake hook under mu_, checked by Clang's thread-safety
// analysis, scripts/thread_safety).
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "base/mutex.hpp"

namespace accelopt::llm {

class CancelToken {
 public:
  // `external` (may be null) is polled, never written; REQUIRES: it outlives
  // the call it is given to.
  explicit CancelToken(const std::atomic<bool>* external = nullptr) : external_(external) {}

  bool cancelled() const {
    return flag_.load(std::memory_order_acquire) || (external_ && external_->load(std::memory_order_acquire));
  }
  bool has_external() const { return external_ != nullptr; }
  // The internal flag only (for RunProcess, which watches one atomic).
  const std::atomic<bool>* flag() const { return &flag_; }
  void SetFlagFromExternal() ACCELOPT_EXCLUDES(mu_) {
    if (external_ && external_->load(std::memory_order_acquire)) Cancel();
  }

  // Sets the flag and runs the wake hook (which must be cheap and non-blocking).
  void Cancel() ACCELOPT_EXCLUDES(mu_) {
    if (flag_.exchange(true, std::memory_order_acq_rel)) return;
    std::function<void()> wake;
    {
      MutexLock lock(&mu_);
      wake = wake_;
    }
    if (wake) wake();
  }

  // Installed by the provider that owns the call, to notice a cancel promptly.
  void SetWakeHook(std::function<void()> wake) ACCELOPT_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    wake_ = std::move(wake);
  }

 private:
  std::atomic<bool> flag_{false};
  const std::atomic<bool>* external_;
  Mutex mu_;
  std::function<void()> wake_ ACCELOPT_GUARDED_BY(mu_);
};

}  // namespace accelopt::llm
