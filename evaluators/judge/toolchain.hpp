// Running the system compiler on untrusted source: a child process with a
// wall-clock limit, rlimits (memory, output size, open files), an empty
// environment (PATH only, so nothing secret can be #included from
// /proc/self/environ), a private network namespace where permitted, and —
// for a candidate's source — a file sandbox (Landlock, base/landlock.hpp):
// the compiler may read the system's toolchain, headers and libraries
// (CompilerReadRoots) and read and write only the evaluation's own folder,
// so no `#include`, `.incbin` or plugin path can reach the cache (judge
// secret, references), the state directory, key files or a home folder.
// Where the kernel has no Landlock a sandboxed compile does not run at all
// (kUnavailable, the evaluation an internal_error saying so).
//
// Thread safety: reentrant.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"
#include "base/subprocess.hpp"

namespace accelopt::eval::judge {

// Flags every candidate is compiled with (besides -shared -fPIC -o).
inline const std::vector<std::string>& KernelFlags() {
  static const std::vector<std::string> kFlags = {"-std=c++17", "-O3", "-march=native", "-fopenmp"};
  return kFlags;
}

// What a sandboxed compile needs beside the compiler: the limits of one
// candidate's compile.
constexpr uint64_t kCompileMemoryBytes = uint64_t{4} << 30;  // RLIMIT_AS of the compiler's processes
constexpr uint64_t kCompileFileBytes = uint64_t{256} << 20;  // RLIMIT_FSIZE: no output file larger

struct CompileRun {
  bool ok = false;
  bool timed_out = false;
  bool cancelled = false;
  std::string output;    // compiler stderr + stdout
  std::string describe;  // "exited with code 1", "timed out after 60 s"
  double seconds = 0;
  int landlock_abi = 0;  // the file sandbox's Landlock ABI (0: not sandboxed)
};

// The folders a sandboxed compiler reads: /usr, /lib*, /bin, /sbin,
// /etc/ld.so.cache, and the installation prefix of `compiler` (resolved
// through PATH and symbolic links) when it lies elsewhere.
std::vector<std::string> CompilerReadRoots(Env* env, const std::string& compiler);

// Runs `compiler args...` through env->RunProcess (PATH is env's). With a
// non-empty `sandbox_dir` the compiler runs in it (cwd and TMPDIR) under the
// file sandbox: it may read CompilerReadRoots and read and write only
// sandbox_dir. `protected_paths` (the cache, the state directory) must not
// lie beneath a read root: kFailedPrecondition naming both when one does.
// A non-ok Status also when the process cannot start or cannot be sandboxed.
Result<CompileRun> RunCompiler(Env* env, const std::string& compiler, const std::vector<std::string>& args,
                               double timeout_s, const std::atomic<bool>* cancel = nullptr,
                               const std::string& sandbox_dir = "",
                               const std::vector<std::string>& protected_paths = {});

}  // namespace accelopt::eval::judge
