// The judge's end of the runner: starts the untrusted runner process, drives
// the command/reply handshake (wire.hpp), times each round trip with the
// judge's own clock, keeps the runner stopped (SIGSTOP) whenever it is not
// inside a call, and reads the runner's CPU time from the kernel. Included
// once, by judge_main.cpp.
//
// Thread safety: single-threaded (the judge's main thread).
#pragma once

#include <dirent.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <fstream>

#include "evaluators/judge/harness/core_warmer.hpp"
#include "evaluators/judge/harness/job.hpp"
#include "evaluators/judge/harness/wire.hpp"

namespace judge {

constexpr rlim_t kRunnerTasks = 512;  // threads (tasks) a runner's namespace may hold

// The name of a system call the runner's sandbox refuses (sandbox.hpp), by
// its number on this machine; nullptr for any other number. The judge's
// own table: a runner can choose which refused call it makes, not the text.
inline const char* KnownSyscallName(long nr) {
  struct Entry {
    long nr;
    const char* name;
  };
#define ACCELOPT_SYSCALL(n) {SYS_##n, #n},
  static const Entry kNames[] = {
      ACCELOPT_SYSCALL(execve) ACCELOPT_SYSCALL(execveat) ACCELOPT_SYSCALL(fork) ACCELOPT_SYSCALL(
          vfork) ACCELOPT_SYSCALL(clone) ACCELOPT_SYSCALL(socket) ACCELOPT_SYSCALL(socketpair) ACCELOPT_SYSCALL(connect)
          ACCELOPT_SYSCALL(bind) ACCELOPT_SYSCALL(listen) ACCELOPT_SYSCALL(accept) ACCELOPT_SYSCALL(accept4)
              ACCELOPT_SYSCALL(sendto) ACCELOPT_SYSCALL(sendmsg) ACCELOPT_SYSCALL(ptrace) ACCELOPT_SYSCALL(
                  kill) ACCELOPT_SYSCALL(tgkill) ACCELOPT_SYSCALL(tkill) ACCELOPT_SYSCALL(open) ACCELOPT_SYSCALL(openat)
                  ACCELOPT_SYSCALL(openat2) ACCELOPT_SYSCALL(creat) ACCELOPT_SYSCALL(unlink) ACCELOPT_SYSCALL(unlinkat)
                      ACCELOPT_SYSCALL(rename) ACCELOPT_SYSCALL(renameat) ACCELOPT_SYSCALL(mkdir) ACCELOPT_SYSCALL(
                          mkdirat) ACCELOPT_SYSCALL(rmdir) ACCELOPT_SYSCALL(truncate) ACCELOPT_SYSCALL(chmod)
                          ACCELOPT_SYSCALL(fchmod) ACCELOPT_SYSCALL(fchmodat) ACCELOPT_SYSCALL(chown)
                              ACCELOPT_SYSCALL(fchown) ACCELOPT_SYSCALL(lchown) ACCELOPT_SYSCALL(fchownat)
                                  ACCELOPT_SYSCALL(setxattr) ACCELOPT_SYSCALL(lsetxattr) ACCELOPT_SYSCALL(fsetxattr)
                                      ACCELOPT_SYSCALL(getxattr) ACCELOPT_SYSCALL(lgetxattr) ACCELOPT_SYSCALL(
                                          fgetxattr) ACCELOPT_SYSCALL(listxattr) ACCELOPT_SYSCALL(llistxattr)
                                          ACCELOPT_SYSCALL(flistxattr) ACCELOPT_SYSCALL(removexattr) ACCELOPT_SYSCALL(
                                              lremovexattr) ACCELOPT_SYSCALL(fremovexattr) ACCELOPT_SYSCALL(utime)
                                              ACCELOPT_SYSCALL(utimes) ACCELOPT_SYSCALL(utimensat) ACCELOPT_SYSCALL(
                                                  futimesat) ACCELOPT_SYSCALL(flock) ACCELOPT_SYSCALL(fcntl)
                                                  ACCELOPT_SYSCALL(fadvise64) ACCELOPT_SYSCALL(
                                                      readahead) ACCELOPT_SYSCALL(mincore) ACCELOPT_SYSCALL(madvise)
                                                      ACCELOPT_SYSCALL(memfd_create) ACCELOPT_SYSCALL(
                                                          mmap) ACCELOPT_SYSCALL(mprotect) ACCELOPT_SYSCALL(prctl)
                                                          ACCELOPT_SYSCALL(arch_prctl) ACCELOPT_SYSCALL(prlimit64)
                                                              ACCELOPT_SYSCALL(setrlimit) ACCELOPT_SYSCALL(
                                                                  sched_setaffinity) ACCELOPT_SYSCALL(setpriority)
                                                                  ACCELOPT_SYSCALL(shmget) ACCELOPT_SYSCALL(
                                                                      shmat) ACCELOPT_SYSCALL(msgget)
                                                                      ACCELOPT_SYSCALL(semget) ACCELOPT_SYSCALL(
                                                                          mq_open) ACCELOPT_SYSCALL(io_uring_setup)
                                                                          ACCELOPT_SYSCALL(bpf) ACCELOPT_SYSCALL(
                                                                              perf_event_open)
                                                                              ACCELOPT_SYSCALL(
                                                                                  userfaultfd) ACCELOPT_SYSCALL(mount)
                                                                                  ACCELOPT_SYSCALL(
                                                                                      unshare) ACCELOPT_SYSCALL(setns)
                                                                                      ACCELOPT_SYSCALL(process_vm_readv)
                                                                                          ACCELOPT_SYSCALL(
                                                                                              process_vm_writev)
                                                                                              ACCELOPT_SYSCALL(
                                                                                                  pidfd_open)
                                                                                                  ACCELOPT_SYSCALL(
                                                                                                      landlock_create_ruleset)
                                                                                                      ACCELOPT_SYSCALL(
                                                                                                          symlink)
                                                                                                          ACCELOPT_SYSCALL(
                                                                                                              link)};
#undef ACCELOPT_SYSCALL
  for (const Entry& e : kNames)
    if (e.nr == nr) return e.name;
  return nullptr;
}

class RunnerLink {
 public:
  // What ended the runner's usefulness; "" while it is fine.
  // kind: "exited", "crashed", "memory" (died at the memory limit),
  // "sandbox", "protocol", "load_error".
  std::string failure_kind, failure_message;

  struct Trip {
    double wall_s = 0;   // judge clock: before continuing the runner -> after it stopped again
    double cpu_s = 0;    // runner CPU time (all threads) over the same interval
    double reply_s = 0;  // judge clock: before continuing -> reply read (the stop not included)
    uint32_t status = 0;
    uint64_t device_ns = 0;  // device-clock runners (job `clock device`): the runner's claim, unchecked here
  };

  // Starts the runner on `cores` with `threads` OpenMP threads; so_fd and
  // shm_fd become its descriptors 3 and 4. The runner is left running,
  // blocked on its first command.
  void Start(const Job& job, int so_fd, int shm_fd, const std::vector<int>& cores, int threads) {
    int cmd[2], rep[2], diag[2];
    if (pipe2(cmd, O_CLOEXEC) || pipe2(rep, O_CLOEXEC) || pipe2(diag, O_CLOEXEC)) Die("pipe2 failed");
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) Die("cannot open /dev/null");
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cores) CPU_SET(c, &set);
    std::string omp = "OMP_NUM_THREADS=" + std::to_string(threads);
    std::vector<std::string> env_strings = job.runner_env;  // job runner_env (the cuda runner's GPU)
    env_strings.push_back(omp);
    std::vector<char*> envp;  // built before fork: the child only execs
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string exe = job.runner_path, fn = job.function;
    char* argv[] = {exe.data(), fn.data(), nullptr};
    const bool unlimited_as = job.runner_unlimited_as;
    const uint64_t file_size_mb = job.runner_file_size_mb;
    pid_ = fork();
    if (pid_ < 0) Die(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
      // Child: async-signal-safe calls only. Sources go high first so that
      // no dup2 below overwrites a descriptor still to be moved.
      int src[6] = {devnull, diag[1], so_fd, shm_fd, cmd[0], rep[1]};
      for (int& s : src) s = fcntl(s, F_DUPFD_CLOEXEC, 16);  // above 0..6 (RLIMIT_NOFILE is 64)
      const int dst[6] = {
          0, 1, accelopt_wire::kSoFd, accelopt_wire::kShmFd, accelopt_wire::kCommandFd, accelopt_wire::kReplyFd};
      for (int k = 0; k < 6; ++k)
        if (src[k] < 0 || dup2(src[k], dst[k]) < 0) _exit(126);
      if (dup2(1, 2) < 0) _exit(126);
      signal(SIGPIPE, SIG_DFL);  // the judge ignores it; the runner gets the default back
      syscall(SYS_close_range, 7U, ~0U, 0U);
      if (sched_setaffinity(0, sizeof set, &set) != 0) _exit(125);
      // Writes that grow a file fail (the cpu runner can open none anyway);
      // job runner_file_size_mb raises it for a runner that must write.
      const rlim_t fsize = static_cast<rlim_t>(file_size_mb) << 20;
      rlimit files{fsize, fsize};
      setrlimit(RLIMIT_FSIZE, &files);
      if (unlimited_as) {  // the judge's own (soft) limit is not the runner's: job runner_address_space
        rlimit as{};
        if (getrlimit(RLIMIT_AS, &as) != 0) _exit(125);
        as.rlim_cur = as.rlim_max;
        if (setrlimit(RLIMIT_AS, &as) != 0) _exit(125);
      }
      // At most kRunnerTasks threads: inside the judge's user namespace
      // RLIMIT_NPROC counts that namespace's tasks only (Linux >= 5.14
      // ucounts), so a runner cannot take the machine's or the daemon's
      // cgroup's PIDs (TasksMax= in the unit). Not enforced for root.
      rlimit tasks{kRunnerTasks, kRunnerTasks};
      setrlimit(RLIMIT_NPROC, &tasks);
      execve(argv[0], argv, envp.data());
      _exit(127);
    }
    close(devnull);
    close(cmd[0]);
    close(rep[1]);
    close(diag[1]);
    cmd_ = cmd[1];
    rep_ = rep[0];
    diag_ = diag[0];
    fcntl(rep_, F_SETFL, O_NONBLOCK);
    fcntl(diag_, F_SETFL, O_NONBLOCK);
    pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
    if (pidfd_ < 0) Die(std::string("pidfd_open: ") + std::strerror(errno));
    if (clock_getcpuclockid(pid_, &cpu_clock_) != 0) Die("clock_getcpuclockid failed");
    running_ = true;
    device_clock_ = job.device_clock;
  }

  // One command and its reply. The runner is continued just before and
  // stopped just after (so it can do nothing between calls), and must not
  // have sent anything unasked. False when the runner failed (see failure_*).
  // The first trip finds the runner running (it has not been stopped yet).
  bool RoundTrip(uint32_t op, Trip* trip, uint32_t count = 1) {
    if (!failure_kind.empty()) return false;
    char junk;
    if (read(rep_, &junk, 1) == 1)
      return Fail("protocol", "the runner wrote on the result channel without being asked");
    const uint64_t seq = ++seq_;
    if (op != accelopt_wire::kNull) candidate_ran_ = true;  // from here on its text is the candidate's
    accelopt_wire::Command c{op, count, seq};
    // The timed interval runs from before the runner is continued to after
    // it is stopped again: whatever the runner's threads do (early, late, in
    // the background) happens inside it. The handshake's own cost is what
    // the judge measures on kNull trips before any candidate is loaded.
    if (warmer_) warmer_->Rest();
    double cpu0 = RunnerCpu();
    const double t0 = Now();
    if (!running_) {
      kill(pid_, SIGCONT);
      running_ = true;
    }
    if (write(cmd_, &c, sizeof c) != static_cast<ssize_t>(sizeof c)) return Ended();
    // A device-clock runner answers with a DeviceReply (the Reply first).
    accelopt_wire::DeviceReply dr{};
    accelopt_wire::Reply& r = dr.reply;
    const size_t want = device_clock_ ? sizeof dr : sizeof r;
    size_t got = 0;
    while (got < want) {
      pollfd fds[3] = {{rep_, POLLIN, 0}, {pidfd_, POLLIN, 0}, {diag_, POLLIN, 0}};
      if (poll(fds, 3, -1) < 0) {
        if (errno == EINTR) continue;
        Die("poll failed");
      }
      if (fds[2].revents) DrainDiag();
      if (fds[0].revents & POLLIN) {
        ssize_t n = read(rep_, reinterpret_cast<char*>(&dr) + got, want - got);
        if (n > 0)
          got += static_cast<size_t>(n);
        else if (n == 0)
          return Ended();
        continue;
      }
      if (fds[1].revents) return Ended();
      if (fds[0].revents & (POLLHUP | POLLERR)) return Ended();
    }
    const double t_reply = Now();
    if (!Stop()) return false;
    const double t1 = Now();
    if (warmer_) warmer_->Warm();
    trip->wall_s = t1 - t0;
    trip->reply_s = t_reply - t0;
    trip->cpu_s = RunnerCpu() - cpu0;
    trip->status = r.status;
    trip->device_ns = device_clock_ ? dr.device_ns : 0;
    if (r.seq != seq || r.op != op) return Fail("protocol", "the runner answered out of turn");
    return true;
  }

  // Lets a runner that answered with a failure finish exiting; fills failure_*.
  void AwaitExit() {
    kill(pid_, SIGCONT);
    running_ = true;
    Ended();
  }

  // Spinners to put to sleep while the runner runs (core_warmer.hpp).
  void set_warmer(CoreWarmer* w) { warmer_ = w; }

  // The runner's threads' time on a CPU and time waiting for one while
  // runnable (ns): fields 1 and 2 of /proc/<pid>/task/*/schedstat, summed
  // over the threads alive now (a stopped runner accrues neither). The wait
  // is what other processes took from the runner: a timed round reads it
  // before and after (judge_main.cpp, Contention). {0, 0} without schedstat.
  std::pair<double, double> SchedSeconds() const {
    double on_cpu = 0, waited = 0;
    const std::string dir = "/proc/" + std::to_string(pid_) + "/task";
    DIR* d = opendir(dir.c_str());
    if (!d) return {0, 0};
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      std::ifstream in(dir + "/" + e->d_name + "/schedstat");
      unsigned long long run = 0, wait = 0;
      if (in >> run >> wait) {
        on_cpu += 1e-9 * static_cast<double>(run);
        waited += 1e-9 * static_cast<double>(wait);
      }
    }
    closedir(d);
    return {on_cpu, waited};
  }

  // Fields of /proc/<runner>/status ("Seccomp", "Cpus_allowed_list", ...).
  std::string StatusField(const std::string& name) const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(name + ":", 0) == 0) {
        size_t p = line.find_first_not_of(" \t", name.size() + 1);
        return p == std::string::npos ? "" : line.substr(p);
      }
    }
    return "";
  }

  // Kills the runner and returns its peak resident memory in KiB.
  long Finish() {
    DrainDiag();
    if (pid_ <= 0) return 0;
    kill(pid_, SIGKILL);
    if (!reaped_) {
      siginfo_t si{};
      Wait(WEXITED, &si);
    }
    return maxrss_kb_;
  }

  const std::string& diagnostics() const { return diag_text_; }

 private:
  bool Fail(const std::string& kind, const std::string& msg) {
    failure_kind = kind;
    failure_message = msg;
    return false;
  }

  double RunnerCpu() const {
    timespec ts{};
    if (clock_gettime(cpu_clock_, &ts) != 0) return 0;
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }

  bool Stop() {
    kill(pid_, SIGSTOP);
    siginfo_t si{};
    Wait(WSTOPPED | WEXITED, &si);
    if (si.si_code == CLD_STOPPED) {
      running_ = false;
      return true;
    }
    return Died(si);
  }

  // The runner closed a pipe or exited: find out how.
  bool Ended() {
    siginfo_t si{};
    Wait(WEXITED, &si);
    return Died(si);
  }

  // waitid with the runner's resource usage (the raw system call has the
  // rusage argument glibc's wrapper lacks); an exit reaps it and records its
  // peak resident memory.
  void Wait(int options, siginfo_t* si) {
    for (;;) {
      *si = siginfo_t{};
      rusage ru{};
      if (syscall(SYS_waitid, P_PID, static_cast<id_t>(pid_), si, options, &ru) == 0) {
        if (si->si_code != CLD_STOPPED && si->si_code != CLD_CONTINUED) {
          reaped_ = true;
          maxrss_kb_ = ru.ru_maxrss;
        }
        return;
      }
      if (errno != EINTR) Die(std::string("waitid: ") + std::strerror(errno));
    }
  }

  // Why a runner that died of `sig` probably ran out of memory, or "". The
  // kernel's figures decide, not the runner's word: its peak resident memory
  // (from waitid) reached half its address-space limit (RLIMIT_AS, which it
  // inherits from the judge) -- a malloc that fails at the limit returns
  // NULL and the write through it is a SIGSEGV; the OOM killer sends
  // SIGKILL. A std::bad_alloc (SIGABRT after "terminate called ...") is
  // named in the runner's diagnostics, which only add detail here: the
  // result is a runtime_error either way.
  std::string MemoryExhausted(int sig) const {
    if (sig != SIGSEGV && sig != SIGBUS && sig != SIGABRT && sig != SIGKILL) return "";
    rlimit as{};
    const bool limited = getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY;
    const long limit_mb = limited ? static_cast<long>(as.rlim_cur >> 20) : 0;
    const long peak_mb = maxrss_kb_ >> 10;
    const bool bad_alloc = diag_text_.find("bad_alloc") != std::string::npos;
    if (!bad_alloc && !(limited && peak_mb * 2 >= limit_mb)) return "";
    std::string m = "exceeded the memory limit (";
    m += limited ? std::to_string(limit_mb) + " MB of address space; " : "no address-space limit; ";
    m += "peak resident " + std::to_string(peak_mb) + " MB)";
    if (bad_alloc) m += ", std::bad_alloc";
    return m;
  }

  // How the runner ended, in the judge's own words: what the kernel
  // reported (exit codes, signals, waitid's figures), never the runner's
  // text, which stays in diagnostics() for a human (docs/evaluation.md,
  // "Only the judge speaks"). The one thing read from the diagnostics is a
  // forbidden call's number, named from the judge's own table.
  bool Died(const siginfo_t& si) {
    DrainDiag();
    // Before the first kLoad only our runner's own code has run (no
    // candidate is loaded yet): what it said then is ours and may be
    // quoted, e.g. why it could not start on its device.
    const std::string own = candidate_ran_ ? "" : DiagLine("");
    if (si.si_code == CLD_EXITED) {
      int code = si.si_status;
      if (!own.empty() && code != 77)
        return Fail("exited",
                    "the runner exited (code " + std::to_string(code) + ") before loading the kernel: " + own);
      if (code == 77) return Fail("sandbox", "a forbidden system call" + ForbiddenCallName());
      if (code == 3) {
        return Fail("load_error",
                    "the kernel could not be loaded: dynamic linking failed or a load-time "
                    "constructor ended the process");
      }
      return Fail("exited", "the kernel exited (code " + std::to_string(code) + ") instead of returning");
    }
    int sig = si.si_status;
    const char* name = strsignal(sig);
    std::string killed = "killed by signal " + std::to_string(sig) + " (" + (name ? name : "?") + ")";
    std::string memory = MemoryExhausted(sig);
    if (!memory.empty()) return Fail("memory", memory + ", then " + killed);
    return Fail("crashed", killed);
  }

  // " (<name>)" for the call the runner's SIGSYS handler reported, when its
  // line has the handler's form and the number is one the judge knows;
  // otherwise "".
  std::string ForbiddenCallName() const {
    const std::string line = DiagLine("forbidden system call: ");
    const size_t nr_at = line.rfind("(nr ");
    if (nr_at == std::string::npos) return "";
    const long nr = std::strtol(line.c_str() + nr_at + 4, nullptr, 10);
    const char* name = KnownSyscallName(nr);
    return name ? std::string(" (") + name + ")" : "";
  }

  void DrainDiag() {
    char buf[4096];
    for (;;) {
      ssize_t n = read(diag_, buf, sizeof buf);
      if (n <= 0) break;
      size_t room = diag_text_.size() < kDiagCap ? kDiagCap - diag_text_.size() : 0;
      diag_text_.append(buf, std::min(room, static_cast<size_t>(n)));
    }
  }

  // The first non-empty diagnostics line starting with `prefix`.
  std::string DiagLine(const std::string& prefix) const {
    std::istringstream in(diag_text_);
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line.rfind(prefix, 0) == 0) return line.substr(0, 300);
    return "";
  }

  static constexpr size_t kDiagCap = 64 << 10;
  CoreWarmer* warmer_ = nullptr;
  pid_t pid_ = -1;
  int cmd_ = -1, rep_ = -1, diag_ = -1, pidfd_ = -1;
  clockid_t cpu_clock_{};
  bool running_ = false, reaped_ = false, device_clock_ = false;
  bool candidate_ran_ = false;  // a command other than kNull was sent: candidate code may have run
  long maxrss_kb_ = 0;          // peak resident memory, once reaped
  uint64_t seq_ = 0;
  std::string diag_text_;
};

}  // namespace judge
