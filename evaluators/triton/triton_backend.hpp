// The triton backend: evaluates a Triton candidate (one Python module) for a
// problem under suites/triton/ (docs/evaluation.md, "triton runner"), behind
// the same trusted judge as the cuda backend.
//
// One evaluation:
//   1. load the problem (backend "triton");
//   2. the static checks (static_check.hpp), with the problem's inputs and
//      outputs as the tensor names;
//   3. the problem's judge (the shared judge, judge/harness_builder.hpp: references in
//      double on the CPU) and the pooled reference outputs; the runner: a copy
//      of evaluators/triton/harness/runner.py (embedded) whose first line is
//      "#!<options.python> -I", under <cache_dir>/triton-runner/<key>/;
//   4. lease one of the backend's GPUs (options.devices);
//   5. run the judge (own process group, empty environment but PATH and
//      CUDA_VISIBLE_DEVICES, private network namespace, RLIMIT_CPU and
//      RLIMIT_NOFILE, killed at settings.timeout_s) with `clock device`, the
//      judge's own memory limit, and a runner environment of
//      CUDA_VISIBLE_DEVICES=<the GPU>, PATH=/usr/bin:/bin (Triton runs the C
//      compiler for its launcher), HOME and TRITON_CACHE_DIR in this
//      evaluation's work folder (no candidate reads another's compiled
//      kernels), and runner_file_size_mb so that Triton can write that cache;
//   6. the verdict as an EvalResult (judge_verdict.hpp), with the GPU
//      calibration's facts when there is one (roofline, percent of peak).
//
// Not done: a sandbox for the runner beyond the process limits, the network
// namespace and the empty environment (it is a Python process with torch:
// the static checks are the only bar to its file access); the baseline
// comparison (request.compare_source is refused). NEVER RUN ON A GPU, and
// never with torch or triton installed: see docs/evaluation.md.
//
// Every file access, clock reading, random number and child process goes
// through options.env.
//
// Thread safety: Evaluate may be called from many threads at once (each call
// works in its own folder and leases its own GPU).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "evaluators/backend.hpp"
#include "evaluators/judge/harness_builder.hpp"
#include "evaluators/gpu/calibration.hpp"
#include "evaluators/gpu/gpu_slots.hpp"

namespace accelopt::eval::triton {

struct TritonBackendOptions {
  Env* env = nullptr;              // REQUIRED
  std::string root = ".";          // relative problem paths are resolved against this folder
  std::string cache_dir;           // REQUIRED: judge builds, references, runner copies, work folders
  std::string python;              // REQUIRED: an absolute path to the interpreter with torch and triton
  std::string compiler = "g++";    // the judge's compiler
  std::vector<int> devices = {0};  // CUDA device ids, one evaluation slot each; REQUIRES: not empty
  uint64_t judge_memory_limit_mb = 16384;
  uint64_t runner_file_size_mb = 1024;             // what the runner may write (Triton's cache in the work folder)
  std::optional<gpu::GpuCalibration> calibration;  // roofline and percent of peak; none: not reported
  bool keep_work_dirs = false;
};

class TritonBackend : public Backend {
 public:
  explicit TritonBackend(TritonBackendOptions options);
  std::string name() const override { return "triton"; }
  EvalResult Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) override;
  // The runner file for options.python (written on first use).
  Result<std::string> Runner();

 private:
  TritonBackendOptions options_;
  judge::HarnessCache harnesses_;
  gpu::GpuSlots gpus_;
};

// evaluators/triton/harness/runner.py (embedded at build time).
const char* RunnerSource();

}  // namespace accelopt::eval::triton
