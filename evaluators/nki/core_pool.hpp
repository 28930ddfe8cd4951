// NeuronCores as evaluation slots: `evaluators.nki.cores: "0-31"` names the
// cores (ParseCoreList), one evaluation at a time per core. A core whose
// runner crashed or hit a device error is marked suspect; before it is used
// again the pool runs its health check (production: a trivial kernel on that
// core through the runner; tests: a function) and quarantines it with a log
// line when that fails. A quarantined core is never used again by this pool
// (a restart of the daemon re-admits it, after the same check on first use
// only if it fails again).
//
// Thread safety: every member is thread-safe. The health check runs on the
// acquiring thread without the pool's lock held; it must not call the pool.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "base/mutex.hpp"
#include "base/env.hpp"
#include "base/status.hpp"

namespace accelopt::eval::nki {

// "0-31", "0,2,4-7" -> sorted distinct core ids. kInvalidArgument naming
// the spec for anything else (empty, descending ranges, duplicates, ids
// above 4095, junk).
Result<std::vector<int>> ParseCoreList(const std::string& spec);

class NeuronCorePool {
 public:
  using HealthCheck = std::function<Status(int core)>;
  using LogLine = std::function<void(const std::string& line)>;

  // REQUIRES: cores non-empty and distinct. `log` defaults to LogWarning;
  // `env` (the clock of Acquire's timeout) to Env::Default() and must
  // outlive the pool.
  NeuronCorePool(std::vector<int> cores, HealthCheck health_check, LogLine log = nullptr, Env* env = nullptr);

  // A free, healthy core; blocks until one is free, `cancel` becomes true
  // (kCancelled) or `timeout` passes on env's monotonic clock (kTimeout;
  // both looked at every 100 ms of real time at least). kFailedPrecondition
  // when every core is quarantined.
  Result<int> Acquire(const std::atomic<bool>* cancel, std::chrono::milliseconds timeout);
  // Gives `core` back. `runner_failed`: the runner crashed or reported a
  // device error on it; the core is health-checked before its next use.
  void Release(int core, bool runner_failed);

  std::vector<int> Quarantined() const;
  size_t size() const { return cores_.size(); }

 private:
  const std::vector<int> cores_;
  HealthCheck check_;
  LogLine log_;
  Env* env_;
  mutable Mutex mu_;
  std::condition_variable cv_;
  std::set<int> busy_ ACCELOPT_GUARDED_BY(mu_), suspect_ ACCELOPT_GUARDED_BY(mu_),
      quarantined_ ACCELOPT_GUARDED_BY(mu_);
};

}  // namespace accelopt::eval::nki
