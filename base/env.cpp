#include "base/env.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

namespace accelopt {
namespace {

namespace fs = std::filesystem;

class PosixEnv : public Env {
 public:
  int64_t NowMicros() override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  int64_t MonotonicNanos() override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
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

  Result<std::string> ReadFile(const std::string& path) override {
    std::ifstream in(path, std::ios::binary);
    if (!in) return NotFound("cannot open " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return IOError("read failed: " + path);
    return ss.str();
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

  bool Exists(const std::string& path) override {
    std::error_code ec;
    return fs::exists(path, ec);
  }

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

  Result<ProcessResult> RunProcess(const ProcessSpec& spec) override {
    return accelopt::RunProcess(spec);
  }
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

}  // namespace accelopt
