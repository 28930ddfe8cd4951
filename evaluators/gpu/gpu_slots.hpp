// The GPUs of a GPU backend (cuda, triton) as evaluation slots: one
// evaluation per GPU at a time. The dispatcher never runs more evaluations
// of a backend than it has GPUs, so Take waits only for an evaluation that
// is returning its GPU.
//
// Thread safety: thread-safe. A Lease returns its GPU when destroyed; it
// must not outlive the GpuSlots.
#pragma once

#include <condition_variable>
#include <vector>

#include "base/mutex.hpp"

namespace accelopt::eval::gpu {

class GpuSlots {
 public:
  // REQUIRES: devices not empty.
  explicit GpuSlots(std::vector<int> devices) : free_(std::move(devices)) {}

  class Lease {
   public:
    Lease(GpuSlots* slots, int device) : slots_(slots), device_(device) {}
    ~Lease() { slots_->Return(device_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    int device() const { return device_; }

   private:
    GpuSlots* slots_;
    int device_;
  };

  // A free GPU, waited for.
  int TakeDevice() ACCELOPT_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    while (free_.empty()) lock.Wait(&cv_);
    const int d = free_.front();
    free_.erase(free_.begin());
    return d;
  }

 private:
  void Return(int device) {
    {
      MutexLock lock(&mu_);
      free_.push_back(device);
    }
    cv_.notify_one();
  }

  Mutex mu_;
  std::condition_variable cv_;
  std::vector<int> free_ ACCELOPT_GUARDED_BY(mu_);
};

}  // namespace accelopt::eval::gpu
