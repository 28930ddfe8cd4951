#include "evaluators/triton/triton_backend.hpp"

#include <cmath>
#include <filesystem>

#include "base/sha256.hpp"
#include "base/subprocess.hpp"
#include "evaluators/judge/judge_verdict.hpp"
#include "evaluators/gpu/gpu_result.hpp"
#include "evaluators/eval_frame.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/triton/static_check.hpp"

namespace accelopt::eval::triton {
namespace embedded {
extern const char* const kRunnerPy;  // triton_embedded.cpp (embedded.cpp.in)
}  // namespace embedded

namespace fs = std::filesystem;
const char* RunnerSource() { return embedded::kRunnerPy; }

TritonBackend::TritonBackend(TritonBackendOptions options)
    : options_(std::move(options)),
      harnesses_(options_.cache_dir, options_.compiler, options_.env),
      gpus_(options_.devices) {
  // The work folders of evaluations whose process was killed.
  if (options_.env && !options_.cache_dir.empty()) SweepOrphanWorkDirs(options_.env, options_.cache_dir);
}

Result<std::string> TritonBackend::Runner() {
  Env* const env = options_.env;
  if (options_.python.empty() || options_.python[0] != '/')
    return InvalidArgument("the triton backend's python must be an absolute path, not '" + options_.python + "'");
  if (options_.python.find_first_of(" \t\n") != std::string::npos)
    return InvalidArgument("the triton backend's python path may not contain spaces: '" + options_.python + "'");
  const std::string text = "#!" + options_.python + " -I\n" + RunnerSource();
  const std::string dir = (fs::path(options_.cache_dir) / "triton-runner" / Sha256Hex(text).substr(0, 16)).string();
  const std::string runner = dir + "/runner";
  if (env->IsFile(runner)) return runner;
  ACCELOPT_RETURN_IF_ERROR(env->CreateDirs(dir));
  ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic(runner, text));
  ACCELOPT_RETURN_IF_ERROR(env->SetPermissions(runner, 0755));
  return runner;
}

EvalResult TritonBackend::Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) {
  Env* const env = options_.env;
  const EvalSettings& s = request.settings;
  EvalFrame f(env, cancel);
  EvalResult& result = f.result;
  auto problem = f.LoadProblemFor(request, options_.root, "triton");
  if (!problem.ok()) return f.Fail(EvalStatus::kInternalError, problem.status().message());
  if (!request.compare_source.empty())
    return f.Fail(EvalStatus::kInternalError,
                  "the triton backend does not compare with a baseline yet (compare_source)");
  if (options_.calibration) result.hardware = gpu::GpuHardware(*options_.calibration);

  // 2. Static checks.
  const int64_t t_check = f.Now();
  std::vector<std::string> tensors;
  for (const auto& p : problem->params)
    if (p.kind == workflows::ParamKind::kInput || p.kind == workflows::ParamKind::kOutput) tensors.push_back(p.name);
  if (Status st = CheckTritonSource(request.source, tensors); !st.ok())
    return f.Fail(EvalStatus::kStaticCheckFailed, "static check: " + st.message());

  // 3. Judge, references, runner, work folder.
  auto harness = harnesses_.Get(*problem, cancel);
  if (!harness.ok()) return f.FailStep(harness.status());
  auto runner = Runner();
  if (!runner.ok()) return f.Fail(EvalStatus::kInternalError, "the triton runner: " + runner.status().message());
  auto secret = harnesses_.Secret();
  if (!secret.ok()) return f.Fail(EvalStatus::kInternalError, "judge secret: " + secret.status().message());
  std::vector<judge::CaseSpec> cases = judge::MakeCases(*problem, s, *secret, [env] { return env->RandomU64(); });
  const std::string work = f.WorkDirName(options_.cache_dir, "triton-");
  const WorkDirCleanup cleanup{env, work, options_.keep_work_dirs};
  auto refs = harnesses_.References(*problem, *harness, cases, work + "/pool", cancel);
  if (!refs.ok()) return f.FailStep(refs.status(), /*whole_reason=*/true);
  if (Status st = env->CreateDirs(work + "/triton-cache"); !st.ok())
    return f.Fail(EvalStatus::kInternalError, "work folder: " + st.message());
  const std::string candidate = work + "/candidate.py";
  if (Status st = env->WriteFileAtomic(candidate, request.source); !st.ok())
    return f.Fail(EvalStatus::kInternalError, "work folder: " + st.message());
  result.compiled = true;  // Triton compiles in the runner, at the first call: a failure there is the candidate's
  result.timings.check_s = f.SecondsSince(t_check);
  if (f.Cancelled()) return f.Fail(EvalStatus::kCancelled, "cancelled");

  // 4-5. One GPU, one judge, one fresh runner.
  const gpu::GpuSlots::Lease lease(&gpus_, gpus_.TakeDevice());
  const int device = lease.device();
  // Python, torch and the CUDA driver open many files.
  const ProcessSpec spec = gpu::GpuJudgeSpec(
      harness->judge, judge::JobText(*problem, "judge", candidate, *runner, cases, *refs, s),
      "runner_file_size_mb " + std::to_string(options_.runner_file_size_mb) + "\n" + "runner_env PATH=/usr/bin:/bin\n" +
          "runner_env HOME=" + work + "\n" + "runner_env TRITON_CACHE_DIR=" + work + "/triton-cache\n",
      device, options_.judge_memory_limit_mb, 1024, s, cancel);
  const int64_t t_run = f.Now();
  auto run = env->RunProcess(spec);
  result.timings.measure_s = f.SecondsSince(t_run);
  if (!run.ok()) return f.Fail(EvalStatus::kInternalError, "cannot start the judge: " + run.status().message());
  result.sandbox = {{"network_isolated", run->network_isolated},
                    {"judge_memory_limit_mb", options_.judge_memory_limit_mb},
                    {"runner_memory_limit", "none"},
                    {"runner_file_size_mb", options_.runner_file_size_mb},
                    {"timeout_s", s.timeout_s},
                    {"separate_judge", true},
                    {"runner", "python"},
                    {"cuda_device", device}};
  judge::JudgeOutcome judged = judge::ReadJudgeOutcome(*run, cases, s.timeout_s);
  result.runner_diagnostics = judged.runner_diagnostics;  // for a human; never in a prompt
  if (!judged.passed) return gpu::GpuJudgeFailure(f, judged, "the triton runner", device);
  return f.Finish(gpu::GpuTimedResult(std::move(result), *problem, judged.verdict, cases, s, options_.calibration,
                                      "CUDA events via torch"));
}

}  // namespace accelopt::eval::triton
