// Running a child process with limits and a wall-clock timeout.
//
// The child gets its own process group; on timeout (or when the caller's
// cancel flag is set) the whole group gets SIGKILL, and the group is killed
// again after the main child exits so that stray grandchildren do not outlive
// it. Output is captured up to a cap. RunProcess blocks the calling thread; it
// never hangs past timeout + a short drain grace. Thread-safe: may be called
// from many threads at once (it forks; the child only calls async-signal-safe
// functions before exec).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/landlock.hpp"
#include "base/status.hpp"

namespace accelopt {

struct ProcessLimits {
  // Each limit is applied with setrlimit in the child when set.
  std::optional<uint64_t> address_space_bytes;  // RLIMIT_AS
  std::optional<uint64_t> cpu_seconds;          // RLIMIT_CPU
  std::optional<uint64_t> file_size_bytes;      // RLIMIT_FSIZE
  std::optional<uint64_t> open_files;           // RLIMIT_NOFILE
  std::optional<uint64_t> processes;            // RLIMIT_NPROC (not enforced for root)
  std::optional<uint64_t> core_bytes = 0;       // RLIMIT_CORE: no core dumps by default
};

struct ProcessSpec {
  std::vector<std::string> argv;               // argv[0] is looked up in PATH
  std::map<std::string, std::string> env_set;  // added to / overriding the inherited env
  bool clear_env = false;                      // start from an empty env (then env_set)
  std::string cwd;                             // empty: inherit
  std::string stdin_data;                      // written to the child's stdin, then closed
  std::chrono::milliseconds timeout{60000};    // wall clock; <= 0 means none
  // A timeout that a busy host cannot turn into the child's fault. When
  // > 0: at the timeout the group's CPU time is read (/proc); if it is
  // below timeout x timeout_cpu_share, the deadline moves on (re-read every
  // 200 ms) until the group has had that much CPU (then kTimedOut) or the
  // wall clock reaches timeout x timeout_stretch (then kTimedOut with
  // `starved` set: the host, not the child, was slow).
  double timeout_cpu_share = 0;
  int timeout_stretch = 4;
  ProcessLimits limits;
  // Private namespaces, granted when permitted: with CAP_SYS_ADMIN a plain
  // unshare; as an unprivileged user inside a new user namespace mapping
  // only the child's own uid/gid (needs user namespaces, e.g. systemd's
  // RestrictNamespaces= allowing "user net ipc"); else not granted
  // (ProcessResult says so).
  bool private_network = false;  // unshare(CLONE_NEWNET): only a loopback interface
  bool private_ipc = false;      // unshare(CLONE_NEWIPC): no SysV/POSIX
                                 // IPC object of the host or of another child is visible
  // Landlock: the child may open only these paths (base/landlock.hpp). When
  // set and the kernel has no Landlock, RunProcess fails with kUnavailable
  // and starts nothing: never silently unrestricted.
  std::optional<FileAccessRules> file_access;
  size_t max_output_bytes = 1 << 20;          // per stream; the rest is discarded
  const std::atomic<bool>* cancel = nullptr;  // when it becomes true, the group is killed
};

struct ProcessResult {
  enum class Outcome { kExited, kSignaled, kTimedOut, kCancelled };
  Outcome outcome = Outcome::kExited;
  int exit_code = -1;  // when kExited
  int signal = 0;      // when kSignaled
  std::string stdout_data;
  std::string stderr_data;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  bool network_isolated = false;  // private_network was asked for and granted
  bool ipc_isolated = false;      // private_ipc was asked for and granted
  int landlock_abi = 0;           // file_access was applied with this Landlock ABI
  bool starved = false;           // timed out without its CPU share (timeout_cpu_share)
  // CPU time (user + system) of the child and of the descendants it waited
  // for, from wait4; on a timeout, of every process of its group just
  // before the kill (/proc); zero when cancelled.
  std::chrono::nanoseconds cpu{0};
  std::chrono::nanoseconds wall{0};

  bool Succeeded() const { return outcome == Outcome::kExited && exit_code == 0; }
  // "exited with code 2", "killed by signal 11 (Segmentation fault)", "timed out after 5.0 s"
  std::string Describe() const;
};

// Starts argv and waits. A non-ok Status only when the process could not be
// started (fork/pipe failure, argv empty); exec failure in the child is an
// exit with code 127 and a message on stderr.
Result<ProcessResult> RunProcess(const ProcessSpec& spec);

}  // namespace accelopt
