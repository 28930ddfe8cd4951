// An exclusive lock on a state directory, so that two daemons never share one.
//
// Held with Env::LockFile (flock(2) in the real Env) on <dir>/acceloptd.lock
// for the life of the object; the file records the holder's pid. A second
// Acquire on the same directory, in this or another process, fails with
// FailedPrecondition naming the holder; any other failure (the file cannot
// be opened) is the Env's error.
#pragma once

#include <memory>
#include <string>

#include "base/env.hpp"
#include "base/status.hpp"

namespace accelopt::daemon {

class StateLock {
 public:
  static Result<std::unique_ptr<StateLock>> Acquire(const std::string& state_dir, Env* env);
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

 private:
  explicit StateLock(std::unique_ptr<FileLock> lock) : lock_(std::move(lock)) {}
  std::unique_ptr<FileLock> lock_;
};

}  // namespace accelopt::daemon
