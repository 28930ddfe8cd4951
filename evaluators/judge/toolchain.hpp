// Running the system compiler on untrusted source: a child process with a
// wall-clock limit, rlimits, an empty environment (PATH only, so nothing
// secret can be #included from /proc/self/environ), and a private network
// namespace where permitted.
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

struct CompileRun {
  bool ok = false;
  bool timed_out = false;
  bool cancelled = false;
  std::string output;   // compiler stderr + stdout
  std::string describe; // "exited with code 1", "timed out after 60 s"
  double seconds = 0;
};

// Runs `compiler args...` through env->RunProcess (PATH is env's). A non-ok
// Status only when the process cannot start.
Result<CompileRun> RunCompiler(Env* env, const std::string& compiler, const std::vector<std::string>& args,
                               double timeout_s, const std::atomic<bool>* cancel = nullptr);

}  // namespace accelopt::eval::judge
