// The cuda backend: evaluates a CUDA C++ kernel (.cu) for a problem under
// suites/cuda/ (docs/evaluation.md, "cuda backend").
//
// One evaluation:
//   1. load the problem (backend "cuda");
//   2. CheckCandidate (candidate_check.hpp): static source checks, nvcc
//      (KernelFlags, settings.compile_timeout_s), the undefined-symbol
//      allow-list and the host-code instruction check;
//   3. the problem's judge (the shared judge, judge/harness_builder.hpp: judge_main.cpp
//      + the reference glue + reference.cpp, compiled with g++: references
//      are computed in double on the CPU) and the pooled reference outputs,
//      and the problem's cuda runner (runner_main.cpp + the kernel glue,
//      compiled with nvcc, cached under <cache_dir>/cuda-runner/<key>/);
//   4. lease one of the backend's GPUs (options.devices: one evaluation per
//      GPU at a time; the dispatcher runs devices.size() slots);
//   5. run the judge in a child process (own process group, empty
//      environment but PATH and CUDA_VISIBLE_DEVICES=<the leased GPU>,
//      private network namespace, RLIMIT_CPU and RLIMIT_NOFILE, killed at
//      settings.timeout_s) with `clock device`: the judge limits its own
//      address space to options.judge_memory_mb and leaves the runner
//      without one (the CUDA driver reserves address space the size of
//      device plus host memory); every runner is a fresh process with its
//      own CUDA context, and it exits at its first CUDA error (never reused);
//   6. the verdict as an EvalResult (judge_verdict.hpp); with a calibration,
//      the roofline, percent of peak and "faster than the roofline is
//      suspicious" as on cpu.
//
// Not done: the runner's Landlock/seccomp stages (docs/evaluation.md), the
// baseline comparison (request.compare_source is refused), recording the
// GPU calibration as an event. NEVER RUN ON A GPU: what is verified without
// one is listed in docs/evaluation.md.
//
// Every file access, clock reading, random number and child process goes
// through options.env (except the object checks, which read the .so with
// libelf and run objdump).
//
// Thread safety: Evaluate may be called from many threads at once (each call
// works in its own folder under <cache_dir>/work/, and leases its own GPU).
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.hpp"
#include "evaluators/backend.hpp"
#include "evaluators/judge/harness_builder.hpp"
#include "evaluators/gpu/calibration.hpp"
#include "evaluators/gpu/gpu_slots.hpp"

namespace accelopt::eval::cuda {

struct CudaBackendOptions {
  Env* env = nullptr;            // REQUIRED
  std::string root = ".";        // relative problem paths are resolved against this folder
  std::string cache_dir;         // REQUIRED: judge and runner builds, references, work folders
  std::string nvcc;              // REQUIRED: FindNvcc's answer
  std::string arch = "sm_90";    // the GPUs' architecture (KernelFlags; ArchFlag)
  std::string compiler = "g++";  // the judge's compiler (the judge runs on the CPU)
  // CUDA device ids, one evaluation slot each (evaluators.cuda.devices);
  // REQUIRES: not empty.
  std::vector<int> devices = {0};
  uint64_t judge_memory_limit_mb = 16384;          // the judge's own address space (references of 0.5 GB problems)
  std::optional<gpu::GpuCalibration> calibration;  // roofline and percent of peak; none: not reported
  bool keep_work_dirs = false;
};

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(CudaBackendOptions options);
  std::string name() const override { return "cuda"; }
  EvalResult Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) override;

  // The problem's cuda runner, built with nvcc on first use and cached
  // (key: the glue and the runner's sources). kInternal with nvcc's output.
  Result<std::string> Runner(const Problem& problem, const std::atomic<bool>* cancel);

 private:
  CudaBackendOptions options_;
  judge::HarnessCache harnesses_;
  gpu::GpuSlots gpus_;  // one evaluation per GPU of options.devices
  Mutex mu_;
  // One lock per runner build (held while it is built, by key).
  std::map<std::string, std::shared_ptr<Mutex>> runner_locks_ ACCELOPT_GUARDED_BY(mu_);
};

// The sources of the cuda runner (embedded at build time: cuda_embedded.cpp),
// path relative to the repository root -> text.
const std::map<std::string, std::string>& RunnerSources();

}  // namespace accelopt::eval::cuda
