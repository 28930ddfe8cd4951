// A mutex the thread-safety analysis knows (base/thread_annotations.hpp),
// its scoped lock, and waits on a condition variable under that lock.
//
//   Mutex mu_;
//   std::condition_variable cv_;
//   bool ready_ ACCELOPT_GUARDED_BY(mu_) = false;
//   void Await() ACCELOPT_EXCLUDES(mu_) {
//     MutexLock lock(&mu_);
//     while (!ready_) lock.Wait(&cv_);   // a loop, not a predicate lambda:
//   }                                    // clang checks lambdas as lock-free code
//
// Thread safety: Mutex is a std::mutex (not recursive); MutexLock is used by
// one thread, within one scope.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "base/thread_annotations.hpp"

namespace accelopt {

class ACCELOPT_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACCELOPT_ACQUIRE() { mu_.lock(); }
  void Unlock() ACCELOPT_RELEASE() { mu_.unlock(); }
  // Takes the mutex only if it is free; true when it did (then Unlock it).
  bool TryLock() ACCELOPT_TRY_ACQUIRE(true) { return mu_.try_lock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

class ACCELOPT_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACCELOPT_ACQUIRE(mu) : lock_(mu->mu_) {}
  ~MutexLock() ACCELOPT_RELEASE() {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  // Releases the mutex early (before the end of the scope: e.g. before
  // calling out) and takes it again.
  void Unlock() ACCELOPT_RELEASE() { lock_.unlock(); }
  void Lock() ACCELOPT_ACQUIRE() { lock_.lock(); }

  // Releases the mutex while waiting and holds it again on return (spurious
  // wake-ups included: call it in a loop on the condition).
  void Wait(std::condition_variable* cv) { cv->wait(lock_); }
  // As Wait, until `deadline` on the steady clock; false when it passed.
  bool WaitUntil(std::condition_variable* cv, std::chrono::steady_clock::time_point deadline) {
    return cv->wait_until(lock_, deadline) != std::cv_status::timeout;
  }
  // As Wait, for at most `d`; false when it timed out.
  template <typename Rep, typename Period>
  bool WaitFor(std::condition_variable* cv, std::chrono::duration<Rep, Period> d) {
    return cv->wait_for(lock_, d) != std::cv_status::timeout;
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace accelopt
