// Env: every access to the operating system that tests may want to fake —
// clocks, sleeping, randomness, files, child processes — behind one small
// interface (after leveldb's Env). Production code takes an Env* (default:
// Env::Default()); tests pass a FakeEnv or an EnvWrapper that injects faults.
//
// Thread safety: Env::Default() is thread-safe. Wrappers must be too unless
// they say otherwise.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "base/subprocess.hpp"

namespace accelopt {

class Env {
 public:
  virtual ~Env() = default;

  // The process-wide real environment. Never deleted.
  static Env* Default();

  // Wall clock, microseconds since the UNIX epoch (for recorded_at fields).
  virtual int64_t NowMicros() = 0;
  // Monotonic clock in nanoseconds (for durations and deadlines).
  virtual int64_t MonotonicNanos() = 0;
  virtual void SleepFor(std::chrono::nanoseconds d) = 0;

  // Non-deterministic randomness (retry jitter, ids). Workflows never use
  // this: their randomness comes from the recorded seed.
  virtual uint64_t RandomU64() = 0;

  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  // Writes to a temporary file in the same directory, fsyncs, renames.
  virtual Status WriteFileAtomic(const std::string& path, const std::string& data) = 0;
  virtual Status CreateDirs(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;
  // Names (not paths) of the entries of a directory, sorted.
  virtual Result<std::vector<std::string>> ListDir(const std::string& path) = 0;
  virtual Status RemoveAll(const std::string& path) = 0;

  virtual Result<ProcessResult> RunProcess(const ProcessSpec& spec) = 0;

  // The CPUs this process may run on (its affinity), ascending.
  virtual std::vector<int> AllowedCpus() = 0;
};

// Forwards every call to a target; subclass and override what a test changes.
// Does not own the target.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  int64_t NowMicros() override { return target_->NowMicros(); }
  int64_t MonotonicNanos() override { return target_->MonotonicNanos(); }
  void SleepFor(std::chrono::nanoseconds d) override { target_->SleepFor(d); }
  uint64_t RandomU64() override { return target_->RandomU64(); }
  std::vector<int> AllowedCpus() override { return target_->AllowedCpus(); }
  Result<std::string> ReadFile(const std::string& p) override { return target_->ReadFile(p); }
  Status WriteFileAtomic(const std::string& p, const std::string& d) override {
    return target_->WriteFileAtomic(p, d);
  }
  Status CreateDirs(const std::string& p) override { return target_->CreateDirs(p); }
  bool Exists(const std::string& p) override { return target_->Exists(p); }
  Result<std::vector<std::string>> ListDir(const std::string& p) override { return target_->ListDir(p); }
  Status RemoveAll(const std::string& p) override { return target_->RemoveAll(p); }
  Result<ProcessResult> RunProcess(const ProcessSpec& s) override { return target_->RunProcess(s); }

 private:
  Env* target_;
};

// An Env whose clocks only move when the test says so (SleepFor advances
// them instantly). Everything else forwards to the target. Thread-safe.
class FakeClockEnv : public EnvWrapper {
 public:
  explicit FakeClockEnv(Env* target, int64_t start_micros = 1'700'000'000'000'000)
      : EnvWrapper(target), now_micros_(start_micros) {}
  int64_t NowMicros() override;
  int64_t MonotonicNanos() override;
  void SleepFor(std::chrono::nanoseconds d) override;
  void Advance(std::chrono::nanoseconds d);

 private:
  std::atomic<int64_t> now_micros_;
  std::atomic<int64_t> mono_nanos_{0};
};

}  // namespace accelopt
