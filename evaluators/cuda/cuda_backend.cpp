#include "evaluators/cuda/cuda_backend.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "base/sha256.hpp"
#include "base/subprocess.hpp"
#include "evaluators/judge/judge_verdict.hpp"
#include "evaluators/judge/toolchain.hpp"
#include "evaluators/cuda/candidate_check.hpp"
#include "evaluators/gpu/gpu_result.hpp"
#include "evaluators/eval_frame.hpp"
#include "evaluators/problem.hpp"

namespace accelopt::eval::cuda {
namespace embedded {
extern const std::pair<const char*, const char*> kRunnerFiles[];  // cuda_embedded.cpp (embedded.cpp.in)
extern const int kRunnerFileCount;
}  // namespace embedded

namespace fs = std::filesystem;

const std::map<std::string, std::string>& RunnerSources() {
  static const std::map<std::string, std::string> files = [] {
    std::map<std::string, std::string> m;
    for (int i = 0; i < embedded::kRunnerFileCount; ++i)
      m[embedded::kRunnerFiles[i].first] = embedded::kRunnerFiles[i].second;
    return m;
  }();
  return files;
}

CudaBackend::CudaBackend(CudaBackendOptions options)
    : options_(std::move(options)),
      harnesses_(options_.cache_dir, options_.compiler, options_.env),
      gpus_(options_.devices) {
  // The work folders of evaluations whose process was killed.
  if (options_.env && !options_.cache_dir.empty()) SweepOrphanWorkDirs(options_.env, options_.cache_dir);
}

Result<std::string> CudaBackend::Runner(const Problem& problem, const std::atomic<bool>* cancel) {
  Env* const env = options_.env;
  const std::string glue = judge::RunnerGlueSource(problem);
  std::string key_text = options_.nvcc + "|" + glue;
  for (const auto& [path, text] : RunnerSources()) key_text += "|" + path + "|" + text;
  const std::string key = Sha256Hex(key_text).substr(0, 24);
  const fs::path dir = fs::path(options_.cache_dir) / "cuda-runner" / key;
  const std::string runner = (dir / "runner").string();
  std::shared_ptr<Mutex> lock;
  {
    MutexLock guard(&mu_);
    auto& l = runner_locks_[key];
    if (!l) l = std::make_shared<Mutex>();
    lock = l;
  }
  MutexLock guard(lock.get());
  if (env->Exists(runner)) return runner;
  for (const auto& [path, text] : RunnerSources()) {
    ACCELOPT_RETURN_IF_ERROR(env->CreateDirs((dir / "src" / fs::path(path).parent_path()).string()));
    ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic((dir / "src" / path).string(), text));
  }
  ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic((dir / "runner_glue.cpp").string(), glue));
  // --cudart shared: the runner and the candidate (KernelFlags) share one
  // CUDA runtime, hence one context.
  const std::string tmp = runner + ".tmp" + std::to_string(env->RandomU64() % 1000000);
  ACCELOPT_ASSIGN_OR_RETURN(
      auto cc, judge::RunCompiler(env, options_.nvcc,
                                  {"-std=c++17", "-O2", "--cudart", "shared", "-I", (dir / "src").string(),
                                   (dir / "runner_glue.cpp").string(),
                                   (dir / "src/evaluators/cuda/harness/runner_main.cpp").string(), "-ldl", "-o", tmp},
                                  600, cancel));
  if (!cc.ok) return Internal("building the cuda runner " + cc.describe + ":\n" + cc.output);
  ACCELOPT_RETURN_IF_ERROR(env->RenameFile(tmp, runner));
  return runner;
}

EvalResult CudaBackend::Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) {
  Env* const env = options_.env;
  const EvalSettings& s = request.settings;
  EvalFrame f(env, cancel);
  EvalResult& result = f.result;
  auto problem = f.LoadProblemFor(request, options_.root, "cuda");
  if (!problem.ok()) return f.Fail(EvalStatus::kInternalError, problem.status().message());
  if (!request.compare_source.empty())
    return f.Fail(EvalStatus::kInternalError, "the cuda backend does not compare with a baseline yet (compare_source)");
  if (options_.calibration) result.hardware = gpu::GpuHardware(*options_.calibration);

  // 1-2. Static checks, nvcc, object checks.
  const std::string work = f.WorkDirName(options_.cache_dir, "");
  const WorkDirCleanup cleanup{env, work, options_.keep_work_dirs};
  CandidateCheckOptions co;
  co.env = env;
  co.nvcc = options_.nvcc;
  co.work_dir = work;
  co.arch = options_.arch;
  co.compile_timeout_s = s.compile_timeout_s;
  co.keep_object = true;
  co.function = problem->function;
  const int64_t t_check = f.Now();
  EvalResult checked = CheckCandidate(request.source, co, cancel);
  if (checked.status != EvalStatus::kOk) {
    checked.hardware = result.hardware;
    return f.Finish(checked);
  }
  result.compiled = true;
  result.timings = checked.timings;
  const std::string so = work + "/kernel.so";

  // 3. Judge, references, runner.
  auto harness = harnesses_.Get(*problem, cancel);
  if (!harness.ok()) return f.FailStep(harness.status());
  auto runner = Runner(*problem, cancel);
  if (!runner.ok()) return f.FailStep(runner.status());
  auto secret = harnesses_.Secret();
  if (!secret.ok()) return f.Fail(EvalStatus::kInternalError, "judge secret: " + secret.status().message());
  std::vector<judge::CaseSpec> cases = judge::MakeCases(*problem, s, *secret, [env] { return env->RandomU64(); });
  auto refs = harnesses_.References(*problem, *harness, cases, work + "/pool", cancel);
  if (!refs.ok()) return f.FailStep(refs.status(), /*whole_reason=*/true);
  result.timings.check_s = f.SecondsSince(t_check) - result.timings.compile_s;
  if (f.Cancelled()) return f.Fail(EvalStatus::kCancelled, "cancelled");

  // 4-5. One GPU, one judge, one fresh runner.
  const gpu::GpuSlots::Lease lease(&gpus_, gpus_.TakeDevice());
  const int device = lease.device();
  // The CUDA driver opens /dev/nvidia* and more.
  const ProcessSpec spec =
      gpu::GpuJudgeSpec(harness->judge, judge::JobText(*problem, "judge", so, *runner, cases, *refs, s), "", device,
                        options_.judge_memory_limit_mb, 256, s, cancel);
  const int64_t t_run = f.Now();
  auto run = env->RunProcess(spec);
  result.timings.measure_s = f.SecondsSince(t_run);
  if (!run.ok()) return f.Fail(EvalStatus::kInternalError, "cannot start the judge: " + run.status().message());
  result.sandbox = {{"network_isolated", run->network_isolated},
                    {"judge_memory_limit_mb", options_.judge_memory_limit_mb},
                    {"runner_memory_limit", "none"},
                    {"timeout_s", s.timeout_s},
                    {"separate_judge", true},
                    {"cuda_device", device}};
  judge::JudgeOutcome judged = judge::ReadJudgeOutcome(*run, cases, s.timeout_s);
  result.runner_diagnostics = judged.runner_diagnostics;  // for a human; never in a prompt
  if (!judged.passed) return gpu::GpuJudgeFailure(f, judged, "the cuda runner", device);
  return f.Finish(
      gpu::GpuTimedResult(std::move(result), *problem, judged.verdict, cases, s, options_.calibration, "CUDA events"));
}

}  // namespace accelopt::eval::cuda
