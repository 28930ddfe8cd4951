#include "evaluators/cuda/cuda_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "base/sha256.hpp"
#include "base/subprocess.hpp"
#include "evaluators/cpu/judge_verdict.hpp"
#include "evaluators/cpu/toolchain.hpp"
#include "evaluators/cuda/candidate_check.hpp"
#include "evaluators/cuda/gpu_result.hpp"
#include "evaluators/problem.hpp"

namespace accelopt::eval::cuda {
namespace embedded {
extern const std::pair<const char*, const char*> kRunnerFiles[];  // cuda_embedded.cpp (embedded.cpp.in)
extern const int kRunnerFileCount;
}  // namespace embedded

namespace fs = std::filesystem;
namespace {

double CudaSecondsSince(Env* env, int64_t t0) { return (env->MonotonicNanos() - t0) / 1e9; }

}  // namespace

const std::map<std::string, std::string>& RunnerSources() {
  static const std::map<std::string, std::string> files = [] {
    std::map<std::string, std::string> m;
    for (int i = 0; i < embedded::kRunnerFileCount; ++i) m[embedded::kRunnerFiles[i].first] = embedded::kRunnerFiles[i].second;
    return m;
  }();
  return files;
}

CudaBackend::CudaBackend(CudaBackendOptions options)
    : options_(std::move(options)),
      harnesses_(options_.cache_dir, options_.compiler, options_.env),
      gpus_(options_.devices) {}

Result<std::string> CudaBackend::Runner(const Problem& problem, const std::atomic<bool>* cancel) {
  Env* const env = options_.env;
  const std::string glue = cpu::RunnerGlueSource(problem);
  std::string key_text = options_.nvcc + "|" + glue;
  for (const auto& [path, text] : RunnerSources()) key_text += "|" + path + "|" + text;
  const std::string key = Sha256Hex(key_text).substr(0, 24);
  const fs::path dir = fs::path(options_.cache_dir) / "cuda-runner" / key;
  const std::string runner = (dir / "runner").string();
  std::shared_ptr<std::mutex> lock;
  {
    MutexLock guard(&mu_);
    auto& l = runner_locks_[key];
    if (!l) l = std::make_shared<std::mutex>();
    lock = l;
  }
  std::lock_guard<std::mutex> guard(*lock);
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
      auto cc, cpu::RunCompiler(env, options_.nvcc,
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
  const int64_t t_start = env->MonotonicNanos();
  const EvalSettings& s = request.settings;
  EvalResult result;
  auto finish = [&](EvalResult r) {
    r.error_text = TruncateErrorText(r.error_text);
    r.timings.total_s = CudaSecondsSince(env, t_start);
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
  if (problem->backend != "cuda")
    return fail(EvalStatus::kInternalError, "problem " + problem->name + " is not a cuda problem");
  if (!request.compare_source.empty())
    return fail(EvalStatus::kInternalError, "the cuda backend does not compare with a baseline yet (compare_source)");
  if (options_.calibration) {
    result.hardware = options_.calibration->gpu;
    result.hardware["peak_gflops"] = options_.calibration->peak_gflops;
  }

  // 1-2. Static checks, nvcc, object checks.
  const std::string work = (fs::path(options_.cache_dir) / "work" /
                            (std::to_string(getpid()) + "-" + std::to_string(env->RandomU64() % 1000000000000ULL)))
                               .string();
  struct CudaWorkCleanup {
    Env* env; std::string dir; bool keep;
    ~CudaWorkCleanup() { if (!keep) (void)env->RemoveAll(dir); }
  } cleanup{env, work, options_.keep_work_dirs};
  CandidateCheckOptions co;
  co.env = env;
  co.nvcc = options_.nvcc;
  co.work_dir = work;
  co.arch = options_.arch;
  co.compile_timeout_s = s.compile_timeout_s;
  co.keep_object = true;
  const int64_t t_check = env->MonotonicNanos();
  EvalResult checked = CheckCandidate(request.source, co, cancel);
  if (checked.status != EvalStatus::kOk) {
    checked.hardware = result.hardware;
    return finish(checked);
  }
  result.compiled = true;
  result.timings = checked.timings;
  const std::string so = work + "/kernel.so";

  // 3. Judge, references, runner.
  auto harness = harnesses_.Get(*problem, cancel);
  if (!harness.ok()) {
    if (cancelled()) return fail(EvalStatus::kCancelled, "cancelled");
    const std::string msg = harness.status().message();
    return fail(EvalStatus::kInternalError, msg.substr(0, msg.find('\n')), msg);
  }
  auto runner = Runner(*problem, cancel);
  if (!runner.ok()) {
    if (cancelled()) return fail(EvalStatus::kCancelled, "cancelled");
    const std::string msg = runner.status().message();
    return fail(EvalStatus::kInternalError, msg.substr(0, msg.find('\n')), msg);
  }
  auto secret = harnesses_.Secret();
  if (!secret.ok()) return fail(EvalStatus::kInternalError, "judge secret: " + secret.status().message());
  std::vector<cpu::CaseSpec> cases = cpu::MakeCases(*problem, s, *secret, [env] { return env->RandomU64(); });
  auto refs = harnesses_.References(*problem, *harness, cases, cancel);
  if (!refs.ok()) {
    if (cancelled()) return fail(EvalStatus::kCancelled, "cancelled");
    return fail(EvalStatus::kInternalError, refs.status().message());
  }
  result.timings.check_s = CudaSecondsSince(env, t_check) - result.timings.compile_s;
  if (cancelled()) return fail(EvalStatus::kCancelled, "cancelled");

  // 4-5. One GPU, one judge, one fresh runner.
  const GpuSlots::Lease lease(&gpus_, gpus_.TakeDevice());
  const int device = lease.device();
  ProcessSpec spec;
  spec.argv = {harness->judge};
  spec.stdin_data = cpu::JobText(*problem, "judge", so, *runner, cases, *refs, s) + "clock device\njudge_memory_mb " +
                    std::to_string(options_.judge_memory_limit_mb) + "\nrunner_address_space unlimited\n" +
                    "runner_env CUDA_VISIBLE_DEVICES=" + std::to_string(device) + "\n";
  spec.clear_env = true;
  spec.env_set["PATH"] = "/usr/bin:/bin";
  spec.env_set["CUDA_VISIBLE_DEVICES"] = std::to_string(device);
  spec.timeout = std::chrono::milliseconds(static_cast<int64_t>(s.timeout_s * 1000));
  // No RLIMIT_AS here: it would be the runner's too (the judge sets its own).
  spec.limits.cpu_seconds = static_cast<uint64_t>(std::ceil(s.timeout_s * 2 + 10));
  spec.limits.open_files = 256;  // the CUDA driver opens /dev/nvidia* and more
  spec.private_network = true;
  spec.cancel = cancel;
  spec.max_output_bytes = 8 << 20;
  const int64_t t_run = env->MonotonicNanos();
  auto run = env->RunProcess(spec);
  result.timings.measure_s = CudaSecondsSince(env, t_run);
  if (!run.ok()) return fail(EvalStatus::kInternalError, "cannot start the judge: " + run.status().message());
  result.sandbox = {{"network_isolated", run->network_isolated},
                    {"judge_memory_limit_mb", options_.judge_memory_limit_mb},
                    {"runner_memory_limit", "none"},
                    {"timeout_s", s.timeout_s},
                    {"separate_judge", true},
                    {"cuda_device", device}};
  cpu::JudgeOutcome judged = cpu::ReadJudgeOutcome(*run, cases, s.timeout_s);
  if (!judged.passed) {
    // A runner that could not even answer the handshake never ran the
    // candidate: no GPU, no driver, a broken CUDA install. Not the
    // candidate's doing.
    if (judged.phase == "handshake")
      return fail(EvalStatus::kInternalError, "the cuda runner could not start on GPU " + std::to_string(device) +
                                                  ": " + judged.reason,
                  judged.error_text);
    return fail(judged.status, judged.reason, judged.error_text);
  }
  return finish(GpuTimedResult(std::move(result), *problem, judged.verdict, cases, s, options_.calibration,
                                "CUDA events"));
}

}  // namespace accelopt::eval::cuda
