#include "evaluators/triton/triton_backend.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "base/sha256.hpp"
#include "base/subprocess.hpp"
#include "evaluators/cpu/judge_verdict.hpp"
#include "evaluators/cuda/gpu_result.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/triton/static_check.hpp"

namespace accelopt::eval::triton {
namespace embedded {
extern const char* const kRunnerPy;  // triton_embedded.cpp (embedded.cpp.in)
}  // namespace embedded

namespace fs = std::filesystem;
namespace {

double TritonSecondsSince(Env* env, int64_t t0) { return (env->MonotonicNanos() - t0) / 1e9; }

}  // namespace

const char* RunnerSource() { return embedded::kRunnerPy; }

TritonBackend::TritonBackend(TritonBackendOptions options)
    : options_(std::move(options)),
      harnesses_(options_.cache_dir, options_.compiler, options_.env),
      gpus_(options_.devices) {}

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
  const int64_t t_start = env->MonotonicNanos();
  const EvalSettings& s = request.settings;
  EvalResult result;
  auto finish = [&](EvalResult r) {
    r.error_text = TruncateErrorText(r.error_text);
    r.timings.total_s = TritonSecondsSince(env, t_start);
    return r;
  };
  auto fail = [&](EvalStatus st, std::string reason, std::string text = "") {
    EvalResult r = result;
    r.status = st;
    r.reason = std::move(reason);
    r.error_text = std::move(text);
    return finish(r);
  };
  auto cancelled = [&] { return cancel && cancel->load(); };

  fs::path problem_dir = fs::path(request.problem);
  if (problem_dir.is_relative()) problem_dir = fs::path(options_.root) / problem_dir;
  auto problem = LoadProblem(problem_dir.string(), env);
  if (!problem.ok()) return fail(EvalStatus::kInternalError, "cannot load the problem: " + problem.status().message());
  if (problem->backend != "triton")
    return fail(EvalStatus::kInternalError, "problem " + problem->name + " is not a triton problem");
  if (!request.compare_source.empty())
    return fail(EvalStatus::kInternalError, "the triton backend does not compare with a baseline yet (compare_source)");
  if (options_.calibration) {
    result.hardware = options_.calibration->gpu;
    result.hardware["peak_gflops"] = options_.calibration->peak_gflops;
  }

  // 2. Static checks.
  const int64_t t_check = env->MonotonicNanos();
  std::vector<std::string> tensors;
  for (const auto& p : problem->params)
    if (p.kind == workflows::ParamKind::kInput || p.kind == workflows::ParamKind::kOutput) tensors.push_back(p.name);
  if (Status st = CheckTritonSource(request.source, tensors); !st.ok())
    return fail(EvalStatus::kStaticCheckFailed, "static check: " + st.message());

  // 3. Judge, references, runner, work folder.
  auto harness = harnesses_.Get(*problem, cancel);
  if (!harness.ok()) {
    if (cancelled()) return fail(EvalStatus::kCancelled, "cancelled");
    const std::string msg = harness.status().message();
    return fail(EvalStatus::kInternalError, msg.substr(0, msg.find('\n')), msg);
  }
  auto runner = Runner();
  if (!runner.ok()) return fail(EvalStatus::kInternalError, "the triton runner: " + runner.status().message());
  auto secret = harnesses_.Secret();
  if (!secret.ok()) return fail(EvalStatus::kInternalError, "judge secret: " + secret.status().message());
  std::vector<cpu::CaseSpec> cases = cpu::MakeCases(*problem, s, *secret, [env] { return env->RandomU64(); });
  auto refs = harnesses_.References(*problem, *harness, cases, cancel);
  if (!refs.ok()) {
    if (cancelled()) return fail(EvalStatus::kCancelled, "cancelled");
    return fail(EvalStatus::kInternalError, refs.status().message());
  }
  const std::string work = (fs::path(options_.cache_dir) / "work" /
                            ("triton-" + std::to_string(getpid()) + "-" +
                             std::to_string(env->RandomU64() % 1000000000000ULL)))
                               .string();
  struct TritonWorkCleanup {
    Env* env; std::string dir; bool keep;
    ~TritonWorkCleanup() { if (!keep) (void)env->RemoveAll(dir); }
  } cleanup{env, work, options_.keep_work_dirs};
  if (Status st = env->CreateDirs(work + "/triton-cache"); !st.ok())
    return fail(EvalStatus::kInternalError, "work folder: " + st.message());
  const std::string candidate = work + "/candidate.py";
  if (Status st = env->WriteFileAtomic(candidate, request.source); !st.ok())
    return fail(EvalStatus::kInternalError, "work folder: " + st.message());
  result.compiled = true;  // Triton compiles in the runner, at the first call: a failure there is the candidate's
  result.timings.check_s = TritonSecondsSince(env, t_check);
  if (cancelled()) return fail(EvalStatus::kCancelled, "cancelled");

  // 4-5. One GPU, one judge, one fresh runner.
  const cuda::GpuSlots::Lease lease(&gpus_, gpus_.TakeDevice());
  const int device = lease.device();
  ProcessSpec spec;
  spec.argv = {harness->judge};
  spec.stdin_data = cpu::JobText(*problem, "judge", candidate, *runner, cases, *refs, s) + "clock device\njudge_memory_mb " +
                    std::to_string(options_.judge_memory_limit_mb) + "\nrunner_address_space unlimited\n" +
                    "runner_file_size_mb " + std::to_string(options_.runner_file_size_mb) + "\n" +
                    "runner_env CUDA_VISIBLE_DEVICES=" + std::to_string(device) + "\n" +
                    "runner_env PATH=/usr/bin:/bin\n" + "runner_env HOME=" + work + "\n" +
                    "runner_env TRITON_CACHE_DIR=" + work + "/triton-cache\n";
  spec.clear_env = true;
  spec.env_set["PATH"] = "/usr/bin:/bin";
  spec.env_set["CUDA_VISIBLE_DEVICES"] = std::to_string(device);
  spec.timeout = std::chrono::milliseconds(static_cast<int64_t>(s.timeout_s * 1000));
  // No RLIMIT_AS here: it would be the runner's too (the judge sets its own).
  spec.limits.cpu_seconds = static_cast<uint64_t>(std::ceil(s.timeout_s * 2 + 10));
  spec.limits.open_files = 1024;  // Python, torch and the CUDA driver open many
  spec.private_network = true;
  spec.cancel = cancel;
  spec.max_output_bytes = 8 << 20;
  const int64_t t_run = env->MonotonicNanos();
  auto run = env->RunProcess(spec);
  result.timings.measure_s = TritonSecondsSince(env, t_run);
  if (!run.ok()) return fail(EvalStatus::kInternalError, "cannot start the judge: " + run.status().message());
  result.sandbox = {{"network_isolated", run->network_isolated},
                    {"judge_memory_limit_mb", options_.judge_memory_limit_mb},
                    {"runner_memory_limit", "none"},
                    {"runner_file_size_mb", options_.runner_file_size_mb},
                    {"timeout_s", s.timeout_s},
                    {"separate_judge", true},
                    {"runner", "python"},
                    {"cuda_device", device}};
  cpu::JudgeOutcome judged = cpu::ReadJudgeOutcome(*run, cases, s.timeout_s);
  if (!judged.passed) {
    // A runner that could not answer the handshake never ran the candidate:
    // no GPU, no driver, no torch. Not the candidate's doing.
    if (judged.phase == "handshake")
      return fail(EvalStatus::kInternalError, "the triton runner could not start on GPU " + std::to_string(device) +
                                                  ": " + judged.reason,
                  judged.error_text);
    return fail(judged.status, judged.reason, judged.error_text);
  }
  return finish(cuda::GpuTimedResult(std::move(result), *problem, judged.verdict, cases, s, options_.calibration,
                                     "CUDA events via torch"));
}

}  // namespace accelopt::eval::triton
