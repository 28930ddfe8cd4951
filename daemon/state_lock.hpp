// An exclusive lock on a state directory, so that two daemons never share one.
//
// Held with flock(2) on <dir>/acceloptd.lock for the life of the object; the
// file records the holder's pid. A second Acquire on the same directory, in
// this or another process, fails with FailedPrecondition naming the holder.
#pragma once

#include <memory>
#include <string>

#include "base/status.hpp"

namespace accelopt::daemon {

class StateLock {
 public:
  static Result<std::unique_ptr<StateLock>> Acquire(const std::string& state_dir);
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

 private:
  explicit StateLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace accelopt::daemon
