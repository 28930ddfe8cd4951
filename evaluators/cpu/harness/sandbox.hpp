// The runner's sandbox: Landlock (files, network, signals) and seccomp
// (system calls), in two stages around loading the candidate. Included once,
// by runner_main.cpp.
//
// Stage 1, before dlopen (the candidate's load-time constructors run under it):
//   Landlock: no file may be opened except the candidate .so itself (a rule on
//     the pre-opened descriptor: read + execute), no TCP bind/connect, no
//     signals or abstract sockets outside the runner (ABI 6);
//   seccomp: no processes (fork/exec/clone without CLONE_THREAD), no sockets,
//     no signals to other processes, no file-system changes or writable opens,
//     no ptrace or process_vm_*, no affinity or scheduler changes, no
//     io_uring, bpf, perf, mount, namespaces, no SysV or POSIX IPC (shm*, msg*,
//     sem*, mq_*: objects that would outlive the evaluation), no memfd, no
//     AMX tile permission (arch_prctl ARCH_REQ_XCOMP_PERM); no change to an
//     open file's metadata (xattrs, mode, owner, times, locks, leases) and no
//     page-cache control (fadvise, readahead, mincore, MADV_COLD/PAGEOUT):
//     nothing one runner process does to the kernel object reaches the next.
// Stage 2, after dlopen: a second Landlock domain with no rules at all (no file
//   can be opened), and seccomp: open/openat fail with EACCES, no new
//   executable memory, no prctl.
//
// A forbidden call kills the runner with exit code 77 after writing
// "forbidden system call: <name>" to stderr (the judge's diagnostics pipe).
// Where the kernel has no Landlock the seccomp stages still hold and the
// judge reports landlock_abi 0 (docs/evaluation.md).
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace runner_sandbox {

[[noreturn]] inline void Die(const std::string& msg) {
  std::string line = "runner error: " + msg + "\n";
  (void)!write(2, line.data(), line.size());
  _exit(2);
}

// ---- Landlock -----------------------------------------------------------------

// The ruleset attribute with the fields of newer ABIs (Debian 12's header
// only knows handled_access_fs); the size passed tells the kernel which.
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI >= 4
  uint64_t scoped;              // ABI >= 6
};
struct PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

constexpr uint64_t kFsExecute = 1ULL << 0, kFsReadFile = 1ULL << 2;

inline int LandlockAbi() {
  long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1U /* LANDLOCK_CREATE_RULESET_VERSION */);
  return v < 0 ? 0 : static_cast<int>(v);
}

// Restricts the calling process (all its threads must not exist yet, or be
// covered: called before any thread but OpenMP's idle pool). When allow_fd
// >= 0, that one file stays readable and executable. Returns the ABI used
// (0 when the kernel has no Landlock).
inline int LandlockRestrict(int allow_fd) {
  int abi = LandlockAbi();
  if (abi <= 0) return 0;
  RulesetAttr attr{};
  attr.handled_access_fs = (1ULL << 13) - 1;           // ABI 1: execute ... make_sym
  if (abi >= 2) attr.handled_access_fs |= 1ULL << 13;  // refer
  if (abi >= 3) attr.handled_access_fs |= 1ULL << 14;  // truncate
  if (abi >= 5) attr.handled_access_fs |= 1ULL << 15;  // ioctl_dev
  size_t size = sizeof(uint64_t);
  if (abi >= 4) {
    attr.handled_access_net = 3;
    size = 2 * sizeof(uint64_t);
  }  // bind_tcp | connect_tcp
  if (abi >= 6) {
    attr.scoped = 3;
    size = sizeof(RulesetAttr);
  }  // abstract unix | signal
  int rs = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, size, 0));
  if (rs < 0) Die(std::string("landlock_create_ruleset: ") + std::strerror(errno));
  if (allow_fd >= 0) {
    PathBeneathAttr pb{kFsExecute | kFsReadFile, allow_fd};
    if (syscall(SYS_landlock_add_rule, rs, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &pb, 0) != 0)
      Die(std::string("landlock_add_rule: ") + std::strerror(errno));
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) Die("PR_SET_NO_NEW_PRIVS failed");
  if (syscall(SYS_landlock_restrict_self, rs, 0) != 0)
    Die(std::string("landlock_restrict_self: ") + std::strerror(errno));
  close(rs);
  return abi;
}

// ---- seccomp ------------------------------------------------------------------

struct Forbidden {
  int nr;
  const char* name;
};
inline Forbidden g_forbidden[256];
inline int g_forbidden_count = 0;

inline void OnSigsys(int, siginfo_t* info, void*) {
  const char* name = "unknown";
  for (int i = 0; i < g_forbidden_count; ++i)
    if (g_forbidden[i].nr == info->si_syscall) name = g_forbidden[i].name;
  char msg[160];
  int n = std::snprintf(msg, sizeof msg, "forbidden system call: %s (nr %d)\n", name, info->si_syscall);
  (void)!write(2, msg, n > 0 ? static_cast<size_t>(n) : 0);
  _exit(77);
}

inline void Rule(scmp_filter_ctx ctx, uint32_t action, const char* name, unsigned argc = 0,
                 scmp_arg_cmp a = scmp_arg_cmp{}) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return;  // not on this architecture
  int rc = argc ? seccomp_rule_add(ctx, action, nr, 1, a) : seccomp_rule_add(ctx, action, nr, 0);
  if (rc != 0) Die(std::string("seccomp rule for ") + name + ": " + std::strerror(-rc));
  if (action == SCMP_ACT_TRAP && g_forbidden_count < 256) g_forbidden[g_forbidden_count++] = {nr, name};
}

// Loads the filter into every thread of the process (TSYNC): threads a
// constructor started are covered too.
inline void LoadFilter(scmp_filter_ctx ctx) {
  int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  if (rc != 0) Die(std::string("seccomp TSYNC: ") + std::strerror(-rc));
  rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) Die(std::string("seccomp_load: ") + std::strerror(-rc));
}

inline void SeccompStage1() {
  struct sigaction sa {};
  sa.sa_sigaction = OnSigsys;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSYS, &sa, nullptr);
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) Die("seccomp_init failed");
  const uint32_t T = SCMP_ACT_TRAP;
  for (const char* s :
       {"execve", "execveat", "fork", "vfork", "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
        "sendto", "sendmsg", "sendmmsg", "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise",
        "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "kcmp", "mount", "umount2", "unshare", "setns", "chroot",
        "pivot_root", "reboot", "init_module", "finit_module", "delete_module", "kexec_load", "io_uring_setup",
        "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "truncate", "chmod",
        "fchmodat", "chown", "fchownat", "symlink", "symlinkat", "link", "linkat", "bpf", "perf_event_open",
        "userfaultfd", "setuid", "setgid", "setpgid", "setsid", "memfd_create", "creat", "name_to_handle_at",
        "open_by_handle_at", "sched_setaffinity", "sched_setscheduler", "sched_setattr", "setpriority", "migrate_pages",
        "move_pages", "mbind", "set_mempolicy", "ioprio_set", "setrlimit", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
        "tkill",
        // SysV and POSIX IPC: objects that outlive the runner
        // and reach other runners (Landlock does not cover them)
        "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop",
        "semctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
        "memfd_secret",
        // Metadata of an open file (the kernel object is
        // one): extended attributes, mode, owner, times and
        // locks would carry data from one runner process to
        // the next; page-cache control (advice, residency)
        // would too, through which pages stay cached.
        "setxattr", "lsetxattr", "fsetxattr", "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr",
        "flistxattr", "removexattr", "lremovexattr", "fremovexattr", "fchmod", "fchown", "lchown", "utime", "utimes",
        "utimensat", "futimesat", "flock", "fadvise64", "readahead", "mincore", "remap_file_pages", "fallocate",
        "ftruncate", "sync_file_range", "syncfs", "fsync", "fdatasync"}) {
    Rule(ctx, T, s);
  }
  // The *xattrat calls (Linux 6.13), by number where this libseccomp does
  // not know their names (x86_64: 463-466).
#if defined(__x86_64__)
  for (int nr : {463, 464, 465, 466}) {
    if (seccomp_rule_add(ctx, T, nr, 0) == 0 && g_forbidden_count < 256)
      g_forbidden[g_forbidden_count++] = {nr, "*xattrat"};
  }
#endif
  // Record locks, leases and change notification through fcntl.
  for (scmp_datum_t cmd : {F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_NOTIFY})
    Rule(ctx, T, "fcntl", 1, SCMP_A1(SCMP_CMP_EQ, cmd));
  // Pages pushed out of the page cache on purpose (reclaim advice).
  Rule(ctx, T, "madvise", 1, SCMP_A2(SCMP_CMP_EQ, 20 /* MADV_COLD */));
  Rule(ctx, T, "madvise", 1, SCMP_A2(SCMP_CMP_EQ, 21 /* MADV_PAGEOUT */));
  // Threads only: clone without CLONE_THREAD is a new process.
  Rule(ctx, T, "clone", 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  // clone3's flags live in memory seccomp cannot read: make glibc fall back to clone.
  Rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3");
  Rule(ctx, T, "prlimit64", 1, SCMP_A2(SCMP_CMP_NE, 0));  // reading a limit stays allowed
  // No AMX tile state (reduced precision by another name): without the
  // permission, tile instructions fault even if code slipped past the checks.
  Rule(ctx, T, "arch_prctl", 1, SCMP_A0(SCMP_CMP_EQ, 0x1023));  // ARCH_REQ_XCOMP_PERM
  Rule(ctx, T, "arch_prctl", 1, SCMP_A0(SCMP_CMP_EQ, 0x1025));  // ARCH_REQ_XCOMP_GUEST_PERM
  Rule(ctx, T, "kill", 1, SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(getpid())));
  Rule(ctx, T, "tgkill", 1, SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(getpid())));
  Rule(ctx, T, "open", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, O_WRONLY, O_WRONLY));
  Rule(ctx, T, "open", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, O_RDWR, O_RDWR));
  Rule(ctx, T, "open", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));
  Rule(ctx, T, "openat", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, O_WRONLY, O_WRONLY));
  Rule(ctx, T, "openat", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, O_RDWR, O_RDWR));
  Rule(ctx, T, "openat", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));
  Rule(ctx, T, "openat2");
  LoadFilter(ctx);
}

inline void SeccompStage2() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) Die("seccomp_init failed");
  Rule(ctx, SCMP_ACT_ERRNO(EACCES), "open");
  Rule(ctx, SCMP_ACT_ERRNO(EACCES), "openat");
  Rule(ctx, SCMP_ACT_TRAP, "prctl");
  Rule(ctx, SCMP_ACT_TRAP, "landlock_create_ruleset");
  Rule(ctx, SCMP_ACT_TRAP, "mmap", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
  Rule(ctx, SCMP_ACT_TRAP, "mprotect", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
  Rule(ctx, SCMP_ACT_TRAP, "pkey_mprotect", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
  LoadFilter(ctx);
}

}  // namespace runner_sandbox
