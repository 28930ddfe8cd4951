// A CPU-only test double of the cuda runner's device calls (device.hpp), for
// testing the runner's per-call sequence (runner_call.hpp) without a GPU.
// "Device memory" is host memory; Stop() reports a fixed, obviously fake
// duration (kFakeNs) — no clock is read, so nothing it produces can pass for
// a measurement. It logs every operation, can run "work on another stream"
// only when the device is synchronized (what a non-blocking stream the
// candidate did not synchronize looks like at the stop event), and can fail
// at the n-th operation, after which it is poisoned like a faulted context.
//
// Test-only: built into tests, never into the evaluator or a runner.
#pragma once

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "evaluators/cuda/harness/device.hpp"

namespace accelopt_cuda::fake {

class FakeDevice : public DeviceOps {
 public:
  static constexpr double kFakeNs = 12345;

  ~FakeDevice() override {
    for (void* p : allocations_) std::free(p);
  }
  void* Alloc(size_t bytes) override {
    void* p = std::calloc(1, bytes);
    allocations_.push_back(p);
    return p;
  }
  bool Upload(void* d, const void* h, size_t n) override {
    return Op("upload " + Name(d), [&] { std::memcpy(d, h, n); });
  }
  bool Download(void* h, const void* d, size_t n) override {
    return Op("download " + Name(d), [&] { std::memcpy(h, d, n); });
  }
  bool FillNaN(void* d, size_t n) override {
    return Op("nan " + Name(d), [&] { std::memset(d, 0xff, n); });
  }
  bool FlushL2() override {
    return Op("flush", [] {});
  }
  bool Start() override {
    return Op("start", [] {});
  }
  bool Stop(double* ns) override {
    return Op("stop", [&] { *ns = kFakeNs; });
  }
  bool Synchronize() override {
    return Op("sync", [&] {
      for (auto& w : late_work) w();
      late_work.clear();
    });
  }
  const std::string& error() const override { return error_; }

  void SetName(const void* d, std::string name) { names_[d] = std::move(name); }
  std::vector<std::string> log;
  std::vector<std::function<void()>> late_work;  // runs at the next Synchronize
  int fail_at = -1;                              // the index (in log) of the op that fails

 private:
  template <typename F>
  bool Op(const std::string& what, const F& f) {
    if (!error_.empty()) return false;
    log.push_back(what);
    if (static_cast<int>(log.size()) - 1 == fail_at) {
      error_ = "injected device error at '" + what + "'";
      return false;
    }
    f();
    return true;
  }
  std::string Name(const void* d) const {
    auto it = names_.find(d);
    return it == names_.end() ? "?" : it->second;
  }
  std::string error_;
  std::vector<void*> allocations_;
  std::map<const void*, std::string> names_;
};

}  // namespace accelopt_cuda::fake
