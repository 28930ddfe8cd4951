#include "daemon/state_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace accelopt::daemon {

Result<std::unique_ptr<StateLock>> StateLock::Acquire(const std::string& state_dir) {
  std::string path = state_dir + "/acceloptd.lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return IOError("cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {0};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "another process";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    return FailedPrecondition("state directory " + state_dir + " is in use by acceloptd (pid " + holder +
                              "); stop it first");
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The lock is what matters; the pid is only for the message above.
  }
  return std::unique_ptr<StateLock>(new StateLock(fd));
}

StateLock::~StateLock() { ::close(fd_); }

}  // namespace accelopt::daemon
