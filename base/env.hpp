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
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "base/subprocess.hpp"

namespace accelopt {

// A lock taken with Env::LockFile; released when destroyed.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

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
  // How long a timer waiting on these clocks may sleep in real time before
  // it reads them again (daemon/env_timer.hpp): nanoseconds::max() for
  // clocks that move with real time (the default), a short interval for a
  // clock a test moves by hand, so that moving it wakes the timers.
  virtual std::chrono::nanoseconds ClockRecheckInterval() { return std::chrono::nanoseconds::max(); }

  // Non-deterministic randomness (retry jitter, ids). Workflows never use
  // this: their randomness comes from the recorded seed.
  virtual uint64_t RandomU64() = 0;

  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  // Up to `length` bytes of `path` from byte `offset` (fewer at the end of
  // the file, none past it): large files read in chunks, never whole.
  virtual Result<std::string> ReadFileRange(const std::string& path, uint64_t offset, size_t length) = 0;
  // The size of a regular file (kNotFound when it is missing).
  virtual Result<uint64_t> FileSize(const std::string& path) = 0;
  // Appends `data` to `path` (created 0600 when missing; not synced): large
  // files written in chunks. Not atomic: write under a name nobody reads yet.
  virtual Status AppendFile(const std::string& path, const std::string& data) = 0;
  // Writes to a temporary file in the same directory, fsyncs, renames.
  virtual Status WriteFileAtomic(const std::string& path, const std::string& data) = 0;
  virtual Status CreateDirs(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;
  // A regular file (following symlinks); a directory.
  virtual bool IsFile(const std::string& path) = 0;
  virtual bool IsDirectory(const std::string& path) = 0;
  // Names (not paths) of the entries of a directory, sorted.
  virtual Result<std::vector<std::string>> ListDir(const std::string& path) = 0;
  virtual Status RemoveAll(const std::string& path) = 0;
  // rename(2): replaces `to` atomically.
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
  // chmod(2) to `mode` (e.g. 0600).
  virtual Status SetPermissions(const std::string& path, unsigned mode) = 0;
  // Creates `path` when missing and takes an exclusive advisory lock on it
  // (flock(2)) without waiting, held until the FileLock is destroyed; then
  // replaces the file's contents with `contents` (best effort: who holds it,
  // for the messages of those refused). kFailedPrecondition when another
  // holder, in this process or another, has it (the caller may ReadFile the
  // path to name the holder).
  virtual Result<std::unique_ptr<FileLock>> LockFile(const std::string& path, const std::string& contents) = 0;
  // The process's working directory (for making paths absolute).
  virtual std::string CurrentDir() = 0;

  // An environment variable; nullopt when unset (an empty value is a value).
  virtual std::optional<std::string> GetEnvVar(const std::string& name) = 0;

  virtual Result<ProcessResult> RunProcess(const ProcessSpec& spec) = 0;

  // The CPUs this process may run on (its affinity), ascending.
  virtual std::vector<int> AllowedCpus() = 0;

  // Facts about this process and its kernel: the pid (getpid), the path of
  // the running executable ("" when /proc/self/exe cannot be read), the
  // kernel release (uname -r) and the clock ticks per second that
  // /proc/stat and /proc/<pid>/stat count in (sysconf(_SC_CLK_TCK)).
  virtual int64_t ProcessId() = 0;
  // Whether a process with this pid exists in this pid namespace (kill(pid,
  // 0): alive, or alive under another user). A pid can be reused: true says
  // "some process has it", not "the one that had it".
  virtual bool ProcessAlive(int64_t pid) = 0;
  virtual std::string ExecutablePath() = 0;
  virtual std::string KernelRelease() = 0;
  virtual int64_t ClockTicksPerSecond() = 0;
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
  std::chrono::nanoseconds ClockRecheckInterval() override { return target_->ClockRecheckInterval(); }
  uint64_t RandomU64() override { return target_->RandomU64(); }
  std::vector<int> AllowedCpus() override { return target_->AllowedCpus(); }
  Result<std::string> ReadFile(const std::string& p) override { return target_->ReadFile(p); }
  Result<std::string> ReadFileRange(const std::string& p, uint64_t offset, size_t length) override {
    return target_->ReadFileRange(p, offset, length);
  }
  Result<uint64_t> FileSize(const std::string& p) override { return target_->FileSize(p); }
  Status AppendFile(const std::string& p, const std::string& d) override { return target_->AppendFile(p, d); }
  Status WriteFileAtomic(const std::string& p, const std::string& d) override { return target_->WriteFileAtomic(p, d); }
  Status CreateDirs(const std::string& p) override { return target_->CreateDirs(p); }
  bool Exists(const std::string& p) override { return target_->Exists(p); }
  bool IsFile(const std::string& p) override { return target_->IsFile(p); }
  bool IsDirectory(const std::string& p) override { return target_->IsDirectory(p); }
  Result<std::vector<std::string>> ListDir(const std::string& p) override { return target_->ListDir(p); }
  Status RemoveAll(const std::string& p) override { return target_->RemoveAll(p); }
  Status RenameFile(const std::string& f, const std::string& t) override { return target_->RenameFile(f, t); }
  Status SetPermissions(const std::string& p, unsigned mode) override { return target_->SetPermissions(p, mode); }
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& p, const std::string& contents) override {
    return target_->LockFile(p, contents);
  }
  std::string CurrentDir() override { return target_->CurrentDir(); }
  std::optional<std::string> GetEnvVar(const std::string& n) override { return target_->GetEnvVar(n); }
  Result<ProcessResult> RunProcess(const ProcessSpec& s) override { return target_->RunProcess(s); }
  int64_t ProcessId() override { return target_->ProcessId(); }
  bool ProcessAlive(int64_t pid) override { return target_->ProcessAlive(pid); }
  std::string ExecutablePath() override { return target_->ExecutablePath(); }
  std::string KernelRelease() override { return target_->KernelRelease(); }
  int64_t ClockTicksPerSecond() override { return target_->ClockTicksPerSecond(); }

 private:
  Env* target_;
};

// An Env whose clocks only move when the test says so (SleepFor advances
// them instantly); timers on it (daemon/env_timer.hpp) look at it every
// millisecond of real time. Everything else forwards to the target.
// Thread-safe.
class FakeClockEnv : public EnvWrapper {
 public:
  explicit FakeClockEnv(Env* target, int64_t start_micros = 1'700'000'000'000'000)
      : EnvWrapper(target), now_micros_(start_micros) {}
  int64_t NowMicros() override;
  int64_t MonotonicNanos() override;
  void SleepFor(std::chrono::nanoseconds d) override;
  std::chrono::nanoseconds ClockRecheckInterval() override { return std::chrono::milliseconds(1); }
  void Advance(std::chrono::nanoseconds d);

 private:
  std::atomic<int64_t> now_micros_;
  std::atomic<int64_t> mono_nanos_{0};
};

// An Env whose Nth file operation fails (after leveldb's fault-injection
// tests): every operation that returns a Status or Result — ReadFile,
// WriteFileAtomic, CreateDirs, ListDir, RemoveAll, RenameFile,
// SetPermissions, LockFile — counts, 1-based; the one numbered FailAt(n)
// (and, with FailFrom, every later one) returns kIOError "injected fault:
// <operation> <path>" without touching the target. Queries (Exists, IsFile,
// IsDirectory), clocks and processes forward untouched. Thread-safe.
class FaultyFileEnv : public EnvWrapper {
 public:
  explicit FaultyFileEnv(Env* target) : EnvWrapper(target) {}
  // Fails operation n only (0: none).
  void FailAt(int64_t n) {
    fail_at_ = n;
    fail_from_ = 0;
  }
  // Fails operation n and every later one (0: none).
  void FailFrom(int64_t n) {
    fail_at_ = 0;
    fail_from_ = n;
  }
  // File operations seen so far (failed ones included).
  int64_t operations() const { return operations_.load(); }
  void ResetCount() { operations_ = 0; }

  Result<std::string> ReadFile(const std::string& p) override;
  Status WriteFileAtomic(const std::string& p, const std::string& d) override;
  Status CreateDirs(const std::string& p) override;
  Result<std::vector<std::string>> ListDir(const std::string& p) override;
  Status RemoveAll(const std::string& p) override;
  Status RenameFile(const std::string& f, const std::string& t) override;
  Status SetPermissions(const std::string& p, unsigned mode) override;
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& p, const std::string& contents) override;

 private:
  // OK, or the injected failure for this operation.
  Status Next(const char* op, const std::string& path);
  std::atomic<int64_t> operations_{0};
  std::atomic<int64_t> fail_at_{0};
  std::atomic<int64_t> fail_from_{0};
};

}  // namespace accelopt
