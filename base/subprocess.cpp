#include "base/subprocess.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

extern char** environ;

namespace accelopt {
namespace {

int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

void SetLimit(int resource, const std::optional<uint64_t>& v) {
  if (!v) return;
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(*v);
  setrlimit(resource, &rl);
}

// Writes a message to fd 2 without allocating (child side, after fork).
void ChildFail(const char* what) {
  (void)!write(2, what, strlen(what));
  (void)!write(2, "\n", 1);
  _exit(127);
}

// Writes `text` to `path` (child side: no allocation). False on failure.
bool ChildWriteFile(const char* path, const char* text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == static_cast<ssize_t>(strlen(text));
}

// "<id> <id> 1\n" into buf (child side: no allocation).
void ChildIdMap(unsigned id, char* buf) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + id % 10);
    id /= 10;
  } while (id);
  int at = 0;
  for (int rep = 0; rep < 2; ++rep) {
    for (int i = n - 1; i >= 0; --i) buf[at++] = digits[i];
    buf[at++] = ' ';
  }
  buf[at++] = '1';
  buf[at++] = '\n';
  buf[at] = '\0';
}

// The private network and IPC namespaces a child asked for. As root (or
// with CAP_SYS_ADMIN) a plain unshare; as an unprivileged user (the
// `accelopt` service user) inside a new user namespace that maps only the
// child's own uid and gid to themselves, so files it writes keep their
// owner and it gains no privilege outside (setgroups denied). Returns the
// granted bits: 1 network, 2 IPC. Child side, after fork (single-threaded).
char ChildPrivateNamespaces(bool network, bool ipc) {
  const int want = (network ? CLONE_NEWNET : 0) | (ipc ? CLONE_NEWIPC : 0);
  if (want == 0) return 0;
  if (unshare(want) == 0) return static_cast<char>((network ? 1 : 0) | (ipc ? 2 : 0));
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | want) != 0) {
    // Neither: grant what a plain unshare allows one at a time (old behaviour).
    char granted = 0;
    if (network && unshare(CLONE_NEWNET) == 0) granted |= 1;
    if (ipc && unshare(CLONE_NEWIPC) == 0) granted |= 2;
    return granted;
  }
  char map[40];
  ChildIdMap(uid, map);
  if (!ChildWriteFile("/proc/self/uid_map", map)) ChildFail("cannot write the user namespace's uid_map");
  if (!ChildWriteFile("/proc/self/setgroups", "deny")) ChildFail("cannot deny setgroups in the user namespace");
  ChildIdMap(gid, map);
  if (!ChildWriteFile("/proc/self/gid_map", map)) ChildFail("cannot write the user namespace's gid_map");
  return static_cast<char>((network ? 1 : 0) | (ipc ? 2 : 0));
}

// CPU seconds (user + system, with reaped children's) of every process in
// process group `pgid`, from /proc/<pid>/stat: read just before the group
// is killed on a timeout, when wait4 can no longer tell.
double GroupCpuSeconds(pid_t pgid) {
  double total = 0;
  const long ticks = sysconf(_SC_CLK_TCK);
  DIR* d = opendir("/proc");
  if (!d || ticks <= 0) {
    if (d) closedir(d);
    return 0;
  }
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char path[320];
    std::snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE* f = std::fopen(path, "re");
    if (!f) continue;
    char buf[1024];
    const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    const char* close_paren = std::strrchr(buf, ')');  // the command name may hold spaces
    if (!close_paren) continue;
    // Fields after the name: state ppid pgrp session tty tpgid flags minflt
    // cminflt majflt cmajflt utime stime cutime cstime (3..17 of stat(5)).
    char state;
    long ppid, pgrp, session, tty, tpgid;
    unsigned long flags, minflt, cminflt, majflt, cmajflt, utime, stime;
    long cutime, cstime;
    if (std::sscanf(close_paren + 2, "%c %ld %ld %ld %ld %ld %lu %lu %lu %lu %lu %lu %lu %ld %ld", &state, &ppid, &pgrp,
                    &session, &tty, &tpgid, &flags, &minflt, &cminflt, &majflt, &cmajflt, &utime, &stime, &cutime,
                    &cstime) != 15)
      continue;
    if (pgrp != pgid) continue;
    total += static_cast<double>(utime + stime) + static_cast<double>(cutime + cstime);
  }
  closedir(d);
  return total / static_cast<double>(ticks);
}

struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
};

}  // namespace

std::string ProcessResult::Describe() const {
  std::ostringstream os;
  switch (outcome) {
    case Outcome::kExited:
      os << "exited with code " << exit_code;
      break;
    case Outcome::kSignaled:
      os << "killed by signal " << signal << " (" << strsignal(signal) << ")";
      break;
    case Outcome::kTimedOut:
      os << "timed out after " << std::chrono::duration<double>(wall).count() << " s";
      break;
    case Outcome::kCancelled:
      os << "cancelled";
      break;
  }
  return os.str();
}

Result<ProcessResult> RunProcess(const ProcessSpec& spec) {
  if (spec.argv.empty()) return InvalidArgument("RunProcess: empty argv");

  // Everything the child needs is prepared before fork.
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  if (!spec.clear_env) {
    for (char** e = environ; *e; ++e) {
      std::string s(*e);
      auto eq = s.find('=');
      if (eq != std::string::npos && spec.env_set.count(s.substr(0, eq))) continue;
      env_strings.push_back(std::move(s));
    }
  }
  for (const auto& [k, v] : spec.env_set) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  Pipe in, out, err, status_pipe;
  if (pipe2(in.fd, O_CLOEXEC) || pipe2(out.fd, O_CLOEXEC) || pipe2(err.fd, O_CLOEXEC) ||
      pipe2(status_pipe.fd, O_CLOEXEC)) {
    return IOError(std::string("pipe2: ") + strerror(errno));
  }

  int ruleset = -1;
  if (spec.file_access) {
    ACCELOPT_ASSIGN_OR_RETURN(ruleset, MakeLandlockRuleset(*spec.file_access));
  }
  struct RulesetCloser {
    int fd;
    ~RulesetCloser() {
      if (fd >= 0) close(fd);
    }
  } ruleset_closer{ruleset};

  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) return IOError(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    setpgid(0, 0);
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, nullptr);
    for (int s = 1; s < NSIG; ++s) signal(s, SIG_DFL);
    const char granted = ChildPrivateNamespaces(spec.private_network, spec.private_ipc);
    (void)!write(status_pipe.fd[1], &granted, 1);
    SetLimit(RLIMIT_AS, spec.limits.address_space_bytes);
    SetLimit(RLIMIT_CPU, spec.limits.cpu_seconds);
    SetLimit(RLIMIT_FSIZE, spec.limits.file_size_bytes);
    SetLimit(RLIMIT_NOFILE, spec.limits.open_files);
    SetLimit(RLIMIT_NPROC, spec.limits.processes);
    SetLimit(RLIMIT_CORE, spec.limits.core_bytes);
    if (dup2(in.fd[0], 0) < 0 || dup2(out.fd[1], 1) < 0 || dup2(err.fd[1], 2) < 0) ChildFail("dup2 failed");
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) ChildFail("chdir failed");
    if (ruleset >= 0 && !ApplyLandlockRuleset(ruleset)) ChildFail("cannot apply the Landlock file rules");
    execvpe(argv[0], argv.data(), envp.data());
    ChildFail("exec failed");
  }
  setpgid(pid, pid);  // also from the parent, to win the race with kill(-pid)

  close(in.fd[0]);
  in.fd[0] = -1;
  close(out.fd[1]);
  out.fd[1] = -1;
  close(err.fd[1]);
  err.fd[1] = -1;
  close(status_pipe.fd[1]);
  status_pipe.fd[1] = -1;

  ProcessResult result;
  if (ruleset >= 0) result.landlock_abi = LandlockAbi();
  int pidfd = PidfdOpen(pid);

  int in_fd = in.fd[1];
  fcntl(in_fd, F_SETFL, O_NONBLOCK);
  size_t in_off = 0;
  if (spec.stdin_data.empty()) {
    close(in_fd);
    in.fd[1] = -1;
    in_fd = -1;
  }

  bool exited = false;
  int wstatus = 0;
  bool killed_for_timeout = false, killed_for_cancel = false;
  std::chrono::steady_clock::time_point exit_seen{};
  int out_fd = out.fd[0], err_fd = err.fd[0], st_fd = status_pipe.fd[0];
  char buf[65536];

  auto read_into = [&](int& fd, std::string& dst, bool& truncated) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      size_t room = spec.max_output_bytes > dst.size() ? spec.max_output_bytes - dst.size() : 0;
      if (static_cast<size_t>(n) > room) truncated = true;
      dst.append(buf, std::min<size_t>(room, static_cast<size_t>(n)));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      fd = -1;  // closed by the owning Pipe
    }
  };

  auto deadline = start + spec.timeout;
  const auto hard_deadline = start + spec.timeout * std::max(1, spec.timeout_stretch);
  const double cpu_owed = std::chrono::duration<double>(spec.timeout).count() * spec.timeout_cpu_share;
  while (true) {
    auto now = std::chrono::steady_clock::now();
    if (!exited) {
      bool cancel = spec.cancel && spec.cancel->load();
      bool timeout = spec.timeout.count() > 0 && now >= deadline;
      if (timeout && !killed_for_timeout && !killed_for_cancel) {
        // Read while it runs: the group's members may be stopped on purpose
        // (the judge stops its runners between calls) and must stay as they are.
        const double cpu = GroupCpuSeconds(pid);
        result.cpu = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(cpu));
        if (spec.timeout_cpu_share > 0 && cpu < cpu_owed) {
          if (now < hard_deadline) {  // starved so far: more wall time, not a verdict
            deadline = now + std::chrono::milliseconds(200);
            timeout = false;
          } else {
            result.starved = true;
          }
        }
      }
      if ((cancel || timeout) && !killed_for_timeout && !killed_for_cancel) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        if (cancel)
          killed_for_cancel = true;
        else
          killed_for_timeout = true;
      }
    }
    if (exited) {
      // Drain what is buffered; stop after a short grace (grandchildren may
      // hold the pipes open; they were killed with the group).
      if ((out_fd < 0 && err_fd < 0) || now - exit_seen > std::chrono::milliseconds(500)) break;
    }
    std::vector<pollfd> fds;
    if (out_fd >= 0) fds.push_back({out_fd, POLLIN, 0});
    if (err_fd >= 0) fds.push_back({err_fd, POLLIN, 0});
    if (st_fd >= 0) fds.push_back({st_fd, POLLIN, 0});
    if (in_fd >= 0) fds.push_back({in_fd, POLLOUT, 0});
    if (!exited && pidfd >= 0) fds.push_back({pidfd, POLLIN, 0});
    int wait_ms = 50;
    int rc = poll(fds.data(), fds.size(), wait_ms);
    if (rc < 0 && errno != EINTR) break;
    for (const auto& p : fds) {
      if (!p.revents) continue;
      if (p.fd == out_fd)
        read_into(out_fd, result.stdout_data, result.stdout_truncated);
      else if (p.fd == err_fd)
        read_into(err_fd, result.stderr_data, result.stderr_truncated);
      else if (p.fd == st_fd) {
        char c = 0;
        if (read(st_fd, &c, 1) == 1) {
          result.network_isolated = (c & 1) != 0;
          result.ipc_isolated = (c & 2) != 0;
        }
        st_fd = -1;
      } else if (p.fd == in_fd) {
        if (p.revents & (POLLERR | POLLHUP)) {
          close(in_fd);
          in.fd[1] = -1;
          in_fd = -1;
          continue;
        }
        ssize_t n = write(in_fd, spec.stdin_data.data() + in_off, spec.stdin_data.size() - in_off);
        if (n > 0) in_off += static_cast<size_t>(n);
        if (in_off >= spec.stdin_data.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) {
          close(in_fd);
          in.fd[1] = -1;
          in_fd = -1;
        }
      }
    }
    if (!exited) {
      // pidfd readiness, or fall back to polling waitpid when pidfd is missing.
      rusage ru{};
      pid_t w = wait4(pid, &wstatus, WNOHANG, &ru);
      if (w == pid && !killed_for_timeout) {
        result.cpu = std::chrono::seconds(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     std::chrono::microseconds(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
      }
      if (w == pid) {
        exited = true;
        exit_seen = std::chrono::steady_clock::now();
        result.wall = exit_seen - start;
        kill(-pid, SIGKILL);  // stray grandchildren go with the group
      }
    }
  }
  if (pidfd >= 0) close(pidfd);
  if (!exited) {  // poll failed: make sure nothing is left behind
    kill(-pid, SIGKILL);
    waitpid(pid, &wstatus, 0);
    result.wall = std::chrono::steady_clock::now() - start;
  }

  if (killed_for_cancel) {
    result.outcome = ProcessResult::Outcome::kCancelled;
  } else if (killed_for_timeout) {
    result.outcome = ProcessResult::Outcome::kTimedOut;
  } else if (WIFEXITED(wstatus)) {
    result.outcome = ProcessResult::Outcome::kExited;
    result.exit_code = WEXITSTATUS(wstatus);
  } else if (WIFSIGNALED(wstatus)) {
    result.outcome = ProcessResult::Outcome::kSignaled;
    result.signal = WTERMSIG(wstatus);
  }
  return result;
}

}  // namespace accelopt
