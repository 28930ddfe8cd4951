#include "base/env.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

namespace accelopt {
namespace {

namespace fs = std::filesystem;

class PosixEnv : public Env {
 public:
  int64_t NowMicros() override {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  int64_t MonotonicNanos() override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void SleepFor(std::chrono::nanoseconds d) override { std::this_thread::sleep_for(d); }

  uint64_t RandomU64() override {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    return rng();
  }

  std::vector<int> AllowedCpus() override {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
    if (cpus.empty()) cpus.push_back(0);
    return cpus;
  }

  int64_t ProcessId() override { return static_cast<int64_t>(::getpid()); }
  bool ProcessAlive(int64_t pid) override {
    if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()) return false;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
  }
  std::string ExecutablePath() override {
    std::error_code ec;
    auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.string();
  }
  std::string KernelRelease() override {
    struct utsname u {};
    return ::uname(&u) == 0 ? std::string(u.release) : std::string();
  }
  int64_t ClockTicksPerSecond() override {
    const long hz = ::sysconf(_SC_CLK_TCK);
    return hz > 0 ? hz : 100;
  }

  Result<std::string> ReadFile(const std::string& path) override {
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    // The reason (no such file, permission denied, a directory) tells the fix.
    if (!in) return NotFound("cannot open " + path + ": " + (errno ? strerror(errno) : "unreadable"));
    std::stringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return IOError("read failed: " + path);
    return ss.str();
  }

  Result<std::string> ReadFileRange(const std::string& path, uint64_t offset, size_t length) override {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NotFound("cannot open " + path + ": " + strerror(errno));
    std::string out(length, '\0');
    size_t got = 0;
    while (got < length) {
      ssize_t n = pread(fd, out.data() + got, length - got, static_cast<off_t>(offset + got));
      if (n < 0) {
        if (errno == EINTR) continue;
        std::string e = strerror(errno);
        close(fd);
        return IOError("read " + path + ": " + e);
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    close(fd);
    out.resize(got);
    return out;
  }

  Result<uint64_t> FileSize(const std::string& path) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return NotFound("cannot stat " + path + ": " + strerror(errno));
    if (!S_ISREG(st.st_mode)) return InvalidArgument(path + ": not a regular file");
    return static_cast<uint64_t>(st.st_size);
  }

  Status AppendFile(const std::string& path, const std::string& data) override {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return IOError("cannot open " + path + ": " + strerror(errno));
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = write(fd, data.data() + off, data.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::string e = strerror(errno);
        close(fd);
        return IOError("write " + path + ": " + e);
      }
      off += static_cast<size_t>(n);
    }
    if (close(fd) != 0) return IOError("close " + path + ": " + strerror(errno));
    return Status::Ok();
  }

  Status WriteFileAtomic(const std::string& path, const std::string& data) override {
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return IOError("cannot create " + tmp + ": " + strerror(errno));
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = write(fd, data.data() + off, data.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::string e = strerror(errno);
        close(fd);
        unlink(tmp.c_str());
        return IOError("write " + tmp + ": " + e);
      }
      off += static_cast<size_t>(n);
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
      unlink(tmp.c_str());
      return IOError("fsync " + tmp + ": " + strerror(errno));
    }
    if (rename(tmp.c_str(), path.c_str()) != 0) {
      unlink(tmp.c_str());
      return IOError("rename to " + path + ": " + strerror(errno));
    }
    return Status::Ok();
  }

  Status CreateDirs(const std::string& path) override {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) return IOError("cannot create directory " + path + ": " + ec.message());
    return Status::Ok();
  }

  // Queries: false on any error.
  bool Exists(const std::string& path) override { return fs::exists(StatusOf(path)); }
  bool IsFile(const std::string& path) override { return fs::is_regular_file(StatusOf(path)); }
  bool IsDirectory(const std::string& path) override { return fs::is_directory(StatusOf(path)); }

  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    std::error_code ec;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path, ec)) names.push_back(e.path().filename());
    if (ec) return IOError("cannot list " + path + ": " + ec.message());
    std::sort(names.begin(), names.end());
    return names;
  }

  Status RemoveAll(const std::string& path) override {
    std::error_code ec;
    fs::remove_all(path, ec);
    if (ec) return IOError("cannot remove " + path + ": " + ec.message());
    return Status::Ok();
  }

  Status RenameFile(const std::string& from, const std::string& to) override {
    if (rename(from.c_str(), to.c_str()) != 0) return IOError("rename " + from + " to " + to + ": " + strerror(errno));
    return Status::Ok();
  }

  Status SetPermissions(const std::string& path, unsigned mode) override {
    if (chmod(path.c_str(), static_cast<mode_t>(mode)) != 0) return IOError("chmod " + path + ": " + strerror(errno));
    return Status::Ok();
  }

  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path, const std::string& contents) override {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return IOError("cannot open " + path + ": " + strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      close(fd);
      if (e == EWOULDBLOCK) return FailedPrecondition(path + " is locked by another holder");
      return IOError("flock " + path + ": " + strerror(e));
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, contents.data(), contents.size(), 0) < 0) {
      // The lock is what matters; the contents only name the holder.
    }
    return std::unique_ptr<FileLock>(new PosixFileLock(fd));
  }

  std::string CurrentDir() override {
    std::error_code ec;
    auto p = fs::current_path(ec);
    return ec ? std::string(".") : p.string();
  }

  std::optional<std::string> GetEnvVar(const std::string& name) override {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  }

  Result<ProcessResult> RunProcess(const ProcessSpec& spec) override { return accelopt::RunProcess(spec); }

 private:
  // stat(2), following symlinks; file_type::none on an error.
  static fs::file_status StatusOf(const std::string& path) {
    std::error_code ec;
    return fs::status(path, ec);
  }

  class PosixFileLock : public FileLock {
   public:
    explicit PosixFileLock(int fd) : fd_(fd) {}
    ~PosixFileLock() override { close(fd_); }

   private:
    int fd_;
  };
};

}  // namespace

Env* Env::Default() {
  static PosixEnv* env = new PosixEnv();
  return env;
}

int64_t FakeClockEnv::NowMicros() { return now_micros_.load(); }
int64_t FakeClockEnv::MonotonicNanos() { return mono_nanos_.load(); }
void FakeClockEnv::SleepFor(std::chrono::nanoseconds d) { Advance(d); }
void FakeClockEnv::Advance(std::chrono::nanoseconds d) {
  mono_nanos_ += d.count();
  now_micros_ += d.count() / 1000;
}

Status FaultyFileEnv::Next(const char* op, const std::string& path) {
  const int64_t n = ++operations_;
  const int64_t at = fail_at_.load(), from = fail_from_.load();
  if ((at > 0 && n == at) || (from > 0 && n >= from)) {
    return IOError(std::string("injected fault: ") + op + " " + path);
  }
  return Status::Ok();
}

Result<std::string> FaultyFileEnv::ReadFile(const std::string& p) {
  ACCELOPT_RETURN_IF_ERROR(Next("read", p));
  return EnvWrapper::ReadFile(p);
}
Status FaultyFileEnv::WriteFileAtomic(const std::string& p, const std::string& d) {
  ACCELOPT_RETURN_IF_ERROR(Next("write", p));
  return EnvWrapper::WriteFileAtomic(p, d);
}
Status FaultyFileEnv::CreateDirs(const std::string& p) {
  ACCELOPT_RETURN_IF_ERROR(Next("mkdir", p));
  return EnvWrapper::CreateDirs(p);
}
Result<std::vector<std::string>> FaultyFileEnv::ListDir(const std::string& p) {
  ACCELOPT_RETURN_IF_ERROR(Next("list", p));
  return EnvWrapper::ListDir(p);
}
Status FaultyFileEnv::RemoveAll(const std::string& p) {
  ACCELOPT_RETURN_IF_ERROR(Next("remove", p));
  return EnvWrapper::RemoveAll(p);
}
Status FaultyFileEnv::RenameFile(const std::string& f, const std::string& t) {
  ACCELOPT_RETURN_IF_ERROR(Next("rename", f));
  return EnvWrapper::RenameFile(f, t);
}
Status FaultyFileEnv::SetPermissions(const std::string& p, unsigned mode) {
  ACCELOPT_RETURN_IF_ERROR(Next("chmod", p));
  return EnvWrapper::SetPermissions(p, mode);
}
Result<std::unique_ptr<FileLock>> FaultyFileEnv::LockFile(const std::string& p, const std::string& contents) {
  ACCELOPT_RETURN_IF_ERROR(Next("lock", p));
  return EnvWrapper::LockFile(p, contents);
}

}  // namespace accelopt
