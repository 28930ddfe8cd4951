// Checking a cuda candidate without running it: the static source checks,
// compilation with nvcc (KernelFlags, a wall-clock limit, the compiler's
// messages in the result), the undefined-symbol allow-list on the object
// and the host-code instruction check of the cpu backend (no syscall or
// rdtsc in the host function). This is everything of an evaluation that
// needs no GPU; `accelopt-eval check`, CudaBackend (its first stage) and
// the tests use it. Timing and correctness need a GPU (CudaBackend,
// docs/evaluation.md, "cuda backend").
//
// Every file access and child process goes through the Env.
// Thread safety: reentrant (each call works in its own `work_dir`).
#pragma once

#include <atomic>
#include <string>

#include "base/env.hpp"
#include "base/status.hpp"
#include "evaluators/protocol.hpp"

namespace accelopt::eval::cuda {

struct CandidateCheckOptions {
  Env* env = nullptr;    // REQUIRED
  std::string nvcc;      // REQUIRED: FindNvcc's answer
  std::string work_dir;  // REQUIRED: created; the source and object are written here
  std::string arch = "sm_90";
  double compile_timeout_s = 120;  // nvcc is slower than g++
  bool keep_object = true;         // leave kernel.so in work_dir (the runner would load it)
  // The problem's host function: the object must define it (the judge's
  // CheckObjectFile: also the object's size before it is read, and no data
  // symbol in an executable section). Empty: those checks are skipped.
  std::string function;
};

// status kOk (compiled = true, every check passed), kStaticCheckFailed,
// kCompileError (error_text: nvcc's output, work_dir paths removed), or
// kInternalError (nvcc could not start, objdump missing) — an EvalResult so
// that callers print it as they print evaluations.
EvalResult CheckCandidate(const std::string& source, const CandidateCheckOptions& options,
                          const std::atomic<bool>* cancel = nullptr);

}  // namespace accelopt::eval::cuda
