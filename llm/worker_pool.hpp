// A fixed set of threads running queued tasks in FIFO order.
// Thread-safe (the queue and the stop flag under mu_, checked by Clang's
// thread-safety analysis, scripts/thread_safety). The destructor runs every task already queued, then joins.
// REQUIRES: not destroyed from one of its own tasks.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "base/mutex.hpp"

namespace accelopt::llm {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<void()> task) ACCELOPT_EXCLUDES(mu_);

 private:
  void Run() ACCELOPT_EXCLUDES(mu_);
  Mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_ ACCELOPT_GUARDED_BY(mu_);
  bool stopping_ ACCELOPT_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace accelopt::llm
