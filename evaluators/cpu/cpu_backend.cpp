#include "evaluators/cpu/cpu_backend.hpp"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "base/env.hpp"
#include "base/log.hpp"
#include "base/subprocess.hpp"
#include "evaluators/cpu/embedded.hpp"
#include "evaluators/judge/judge_verdict.hpp"
#include "evaluators/judge/cpp_rules.hpp"
#include "evaluators/judge/object_check.hpp"
#include "evaluators/judge/toolchain.hpp"
#include "evaluators/eval_frame.hpp"
#include "evaluators/stats.hpp"

namespace accelopt::eval::cpu {
namespace fs = std::filesystem;
namespace {

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// The cpu backend's runner, which the judge builds beside itself per
// problem (judge/harness_builder.hpp): harness/runner_main.cpp with the
// problem's kernel glue; full RELRO (no writable GOT), and every library a
// candidate may need already loaded, so loading it opens no file but its own.
judge::HarnessCache::RunnerBuild CpuRunnerBuild() {
  return {embedded::kRunnerFiles,
          "evaluators/cpu/harness/runner_main.cpp",
          {"-std=c++17", "-O2", "-fopenmp"},
          {"-Wl,-z,now", "-Wl,-z,relro", "-Wl,--no-as-needed", "-lmvec", "-lm", "-lgcc_s", "-lseccomp"}};
}

}  // namespace

CpuBackend::CpuBackend(CpuBackendOptions options)
    : options_(std::move(options)),
      harnesses_(options_.cache_dir, options_.compiler, options_.env, options_.reference_cache_max_bytes,
                 CpuRunnerBuild()) {
  // Before the keeper starts: the work folders of evaluations whose process
  // was killed (their timing cases are GBs for a suite's problems).
  if (options_.env && !options_.cache_dir.empty()) SweepOrphanWorkDirs(options_.env, options_.cache_dir);
  if (options_.refill_stock) stock_ = std::make_unique<judge::StockKeeper>(&harnesses_);
  if (options_.calibration_path.empty())
    options_.calibration_path = (fs::path(options_.cache_dir) / "calibration.json").string();
  if (options_.calibration) calibration_ = options_.calibration;
}

Result<Calibration> CpuBackend::GetCalibration() {
  MutexLock lock(&calibration_mu_);
  if (calibration_) return *calibration_;
  CalibrationOptions co;
  co.env = options_.env;
  co.compiler = options_.compiler;
  co.work_dir = (fs::path(options_.cache_dir) / "calibrate").string();
  ACCELOPT_ASSIGN_OR_RETURN(Calibration c, LoadOrCalibrate(options_.calibration_path, co));
  calibration_ = c;
  return c;
}

Result<Calibration> CpuBackend::Recalibrate() {
  // The one procedure (calibration.hpp): compared with the file it replaces,
  // refused on a busy machine.
  ACCELOPT_ASSIGN_OR_RETURN(
      Calibration c, CalibrateAndSave(options_.calibration_path,
                                      CalibrationOptionsFor(options_.cache_dir, options_.env, options_.compiler)));
  MutexLock lock(&calibration_mu_);
  calibration_ = c;
  return c;
}

namespace {

// Why an evaluation step ended the evaluation: its status, reason and text.
struct Stopped {
  EvalStatus status;
  std::string reason, text;
};

// Compiles `source` in a folder of its own, <work>/<stem>/, into
// <work>/<stem>/<stem>.so with the kernel flags, under the compiler's file
// sandbox (toolchain.hpp: it reads the system toolchain and writes only that
// folder; `protect`, the cache, must stay out of its reach). A candidate that
// does not compile is a compile_error with the first error line; the
// comparison kernel (`comparison`: the problem's baseline) not compiling is
// the problem's fault (internal_error). With `check_preprocessed`, what the
// compiler saw (its -save-temps preprocessed output) goes through
// CheckPreprocessed — also when the compile failed, since a refused
// construct (inline assembly made by a macro) explains the failure better.
std::optional<Stopped> CompileKernel(Env* env, const std::string& compiler, const std::string& work,
                                     const std::string& stem, const std::string& source, const EvalSettings& s,
                                     const std::atomic<bool>* cancel, bool comparison, const std::string& protect,
                                     std::string* so, double* compile_s, bool check_preprocessed) {
  // Absolute: the compiler runs in this folder.
  const std::string dir =
      (work.empty() || work[0] != '/' ? env->CurrentDir() + "/" : std::string()) + work + "/" + stem;
  const std::string src = dir + "/" + stem + ".cpp";
  *so = dir + "/" + stem + ".so";
  if (Status st = env->CreateDirs(dir); !st.ok()) return Stopped{EvalStatus::kInternalError, st.ToString(), ""};
  if (Status st = env->WriteFileAtomic(src, source); !st.ok())
    return Stopped{EvalStatus::kInternalError, st.ToString(), ""};
  std::vector<std::string> args = judge::KernelFlags();
  args.insert(args.end(), {"-fPIC", "-shared", "-o", *so, src});
  if (check_preprocessed) args.push_back("-save-temps=obj");
  auto cc = judge::RunCompiler(env, compiler, args, s.compile_timeout_s, cancel, dir, {protect});
  const bool cancelled = cancel && cancel->load();
  if (comparison) {
    if (cc.ok() && cc->ok) return std::nullopt;
    if (cancelled) return Stopped{EvalStatus::kCancelled, "cancelled while compiling", ""};
    return Stopped{EvalStatus::kInternalError, "the comparison kernel does not compile",
                   cc.ok() ? Replace(cc->output, dir + "/", "") : cc.status().message()};
  }
  if (!cc.ok()) return Stopped{EvalStatus::kInternalError, "cannot run the compiler: " + cc.status().message(), ""};
  if (compile_s) *compile_s = cc->seconds;
  std::string text = Replace(cc->output, dir + "/", "");
  if (cc->cancelled) return Stopped{EvalStatus::kCancelled, "cancelled while compiling", ""};
  if (check_preprocessed) {
    // -save-temps=obj names it after the output and the source (GCC:
    // <stem>.so-<stem>.ii; others: <stem>.ii): the one .ii in the folder.
    std::string ii;
    if (auto names = env->ListDir(dir); names.ok())
      for (const auto& n : *names)
        if (n.size() > 3 && n.compare(n.size() - 3, 3, ".ii") == 0) ii = dir + "/" + n;
    if (!ii.empty()) {
      auto pp = env->ReadFile(ii);
      if (!pp.ok()) return Stopped{EvalStatus::kInternalError, pp.status().message(), ""};
      if (Status st = judge::CheckPreprocessed(*pp, src); !st.ok())
        return Stopped{EvalStatus::kStaticCheckFailed, st.message(), ""};
    } else if (cc->ok) {
      return Stopped{EvalStatus::kInternalError, "the compiler left no preprocessed source (-save-temps)", ""};
    }
  }
  if (cc->timed_out) {
    return Stopped{EvalStatus::kCompileError,
                   "compilation timed out after " + std::to_string(s.compile_timeout_s) + " s", text};
  }
  if (!cc->ok) {
    std::string line = cc->describe;
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);)
      if (l.find("error") != std::string::npos || l.find("Error") != std::string::npos) {
        line = l;
        break;
      }
    return Stopped{EvalStatus::kCompileError, "compilation failed: " + line.substr(0, 300), text};
  }
  return std::nullopt;
}

// The checks on the compiled object (the judge's, judge/object_check.hpp):
// its size, the function defined, no data in code; undefined symbols (cpu's
// allow-list); instructions.
std::optional<Stopped> CheckObject(Env* env, const std::string& so, const std::string& function) {
  if (Status st = judge::CheckObjectFile(so, function, env); !st.ok()) {
    return Stopped{st.code() == Code::kPermissionDenied ? EvalStatus::kStaticCheckFailed : EvalStatus::kInternalError,
                   st.message(), ""};
  }
  auto syms = judge::UndefinedSymbols(so, env);
  if (!syms.ok()) return Stopped{EvalStatus::kInternalError, syms.status().message(), ""};
  if (Status st = judge::CheckSymbols(*syms); !st.ok())
    return Stopped{EvalStatus::kStaticCheckFailed, st.message(), ""};
  if (Status st = judge::CheckInstructions(so, env); !st.ok()) {
    return Stopped{st.code() == Code::kUnavailable ? EvalStatus::kInternalError : EvalStatus::kStaticCheckFailed,
                   st.message(), ""};
  }
  return std::nullopt;
}

// The judge's process: a clean environment, no network, a private IPC
// namespace, the evaluation's time, memory and CPU-time limits.
ProcessSpec JudgeProcess(const std::string& judge, std::string job, const EvalSettings& s, int cores,
                         const std::atomic<bool>* cancel) {
  ProcessSpec spec;
  spec.argv = {judge};
  spec.stdin_data = std::move(job);
  spec.clear_env = true;
  spec.env_set["PATH"] = "/usr/bin:/bin";
  spec.timeout = std::chrono::milliseconds(static_cast<int64_t>(s.timeout_s * 1000));
  // A busy host gets the evaluation more wall time instead of a `timeout`
  // for the kernel (judge_verdict.hpp).
  spec.timeout_cpu_share = judge::kTimeoutCpuShare;
  spec.timeout_stretch = judge::kTimeoutStretch;
  // Address space: the limit applies to the judge and to the runner, each.
  spec.limits.address_space_bytes = s.memory_limit_mb << 20;
  spec.limits.cpu_seconds = static_cast<uint64_t>(std::ceil(s.timeout_s * std::max(1, cores) + 10));
  // No file-size limit on the judge: its shared memory is a memfd of the
  // problem's size. The runner gets RLIMIT_FSIZE 0 from the judge.
  spec.limits.open_files = 64;
  spec.private_network = true;
  spec.private_ipc = true;  // the judge and its runners: no IPC object outlives the evaluation or reaches another
  spec.cancel = cancel;
  spec.max_output_bytes = 8 << 20;
  return spec;
}

// The honest metrics of a correct, timed candidate (docs/evaluation.md):
// throughput, the roofline of the cores the runner was pinned to (its slot),
// the judge's own figures.
void FillProfile(EvalResult* result, const json& h, const Problem& problem, const Calibration& cal,
                 const std::string& so) {
  const LatencyStats& lat = *result->latency;
  const int slot_cores = static_cast<int>(h.value("cores", json::array()).size());
  const double peak_gflops = cal.PeakGflopsFor(slot_cores);
  double t = lat.median_us * 1e-6;
  double bw = cal.BandwidthGbpsFor(problem.bytes, slot_cores);
  auto& pr = result->profile;
  pr["flops"] = problem.flops;
  pr["bytes"] = problem.bytes;
  pr["arithmetic_intensity"] = problem.flops / problem.bytes;
  if (t > 0) {
    pr["achieved_gflops"] = problem.flops / t / 1e9;
    pr["achieved_gbps"] = problem.bytes / t / 1e9;
    pr["compute_utilization_pct"] = 100 * problem.flops / t / 1e9 / peak_gflops;
    pr["memory_utilization_pct"] = bw > 0 ? 100 * problem.bytes / t / 1e9 / bw : 0;
  }
  pr["roofline_compute_us"] = problem.flops / (peak_gflops * 1e9) * 1e6;
  pr["roofline_peak_gflops"] = peak_gflops;
  pr["roofline_memory_us"] = bw > 0 ? problem.bytes / (bw * 1e9) * 1e6 : 0;
  pr["roofline_bandwidth_gbps"] = bw;
  pr["avg_cores_busy"] = h.value("avg_cores_busy", 0.0);
  pr["omp_threads"] = h.value("threads", 0);
  pr["slot_cores"] = static_cast<double>(slot_cores);
  pr["runner_max_rss_mb"] = h.value("maxrss_kb", 0.0) / 1024.0;
  pr["timing_calls"] = h.value("calls", 0);
  pr["calls_per_sample"] = h.value("calls_per_sample", 1);
  pr["single_call_us"] = h.value("single_call_ns", 0.0) / 1000.0;
  pr["handshake_overhead_us"] = h.value("handshake_min_ns", 0.0) / 1000.0;
  pr["handshake_median_us"] = h.value("handshake_median_ns", 0.0) / 1000.0;
  pr["stop_median_us"] = h.value("stop_median_ns", 0.0) / 1000.0;
  pr["timing_pool_cases"] = h.value("pool_cases", 0);
  pr["runner_processes"] = h.value("runner_processes", 0);
  pr["pool_limited"] = h.value("pool_limited", false) ? 1.0 : 0.0;
  pr["timing_pool_cases_made"] = h.value("pool_cases_made", 0);  // first uses on this machine: references computed now
  // Contention (judge_main.cpp Timing): the kept round's share of runnable
  // time other processes took, how many rounds were contended, and whether
  // the kept one is (no clean round: the figure says what the host did).
  pr["stolen_share"] = h.value("kept_stolen_share", 0.0);
  pr["contended_rounds"] = h.value("contended_rounds", 0);
  pr["contended"] = h.value("kept_round_contended", false) ? 1.0 : 0.0;
  struct stat st {};
  if (stat(so.c_str(), &st) == 0) pr["kernel_object_bytes"] = static_cast<double>(st.st_size);
  const double peak_us = cal.PeakLatencyUs(problem.flops, problem.bytes, slot_cores);
  result->peak_latency_us = peak_us;
  if (lat.median_us > 0) result->percent_of_peak = 100 * peak_us / lat.median_us;
}

// The side-by-side comparison: the median of the paired ratios of every
// round (judge_main.cpp, Sample), the baseline's figures of the kept round.
json Comparison(const json& h, const LatencyStats& lat, const EvalSettings& s) {
  std::vector<double> base_us, ratios;
  for (const auto& v : h.at("compare_samples_ns")) base_us.push_back(v.get<double>() / 1000.0);
  for (const auto& v : h.value("pair_ratios", json::array())) ratios.push_back(v.get<double>());
  const stats::Ratio sp = stats::PairedSpeedup(ratios);
  const double base_spread = stats::Spread(base_us);
  return {{"baseline_median_us", stats::Median(base_us)},
          {"baseline_spread", base_spread},
          {"baseline_samples_us", base_us},
          {"speedup", sp.value},
          {"speedup_low", sp.low},
          {"speedup_high", sp.high},
          {"pairs", ratios.size()},
          // Noisy too when the pairs are too few for a 95% interval.
          {"noisy", lat.spread > s.target_spread || base_spread > s.target_spread || !sp.covered}};
}

// A correct candidate measured faster than the hardware allows, or faster
// than max_speedup over the baseline, is suspicious, not a record.
void CheckPlausible(EvalResult* result, const EvalSettings& s) {
  const double median_us = result->latency->median_us;
  if (result->percent_of_peak && *result->percent_of_peak > 100 * s.roofline_slack) {
    result->status = EvalStatus::kSuspicious;
    std::ostringstream m;
    m << "faster than the roofline: median " << median_us << " us < peak latency " << *result->peak_latency_us
      << " us (" << *result->percent_of_peak
      << "% of peak); a kernel cannot beat the hardware — check for skipped work";
    result->reason = m.str();
  } else if (s.baseline_latency_us && median_us > 0 && *s.baseline_latency_us / median_us > s.max_speedup) {
    result->status = EvalStatus::kSuspicious;
    std::ostringstream m;
    m << "implausible speedup " << *s.baseline_latency_us / median_us << "x over the baseline (limit " << s.max_speedup
      << "x)";
    result->reason = m.str();
  }
}

}  // namespace

json CpuBackend::Health() {
  const judge::CacheUsage u = harnesses_.Usage();
  const bool checked = u.checked_at_us != 0;
  return {{"reference_cache",
           {{"folder", (fs::path(options_.cache_dir) / "harness").string()},
            {"bytes", checked ? json(u.bytes) : json()},
            {"limit_bytes", options_.reference_cache_max_bytes},
            {"evicted_bytes", u.evicted_bytes},
            {"checked_at_unix", checked ? json(u.checked_at_us / 1000000) : json()}}}};
}

EvalResult CpuBackend::Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) {
  // No stock refill runs beside an evaluation (its CPU would be the
  // evaluation's noise).
  struct Bracket {
    judge::StockKeeper* keeper;
    explicit Bracket(judge::StockKeeper* k) : keeper(k) {
      if (keeper) keeper->EvaluationStarted();
    }
    ~Bracket() {
      if (keeper) keeper->EvaluationEnded();
    }
  } bracket(stock_.get());
  Env* const env = options_.env;
  const EvalSettings& s = request.settings;
  EvalFrame f(env, cancel);
  EvalResult& result = f.result;
  auto stopped = [&](const Stopped& x) { return f.Fail(x.status, x.reason, x.text); };
  auto problem = f.LoadProblemFor(request, options_.root, "cpu");
  if (!problem.ok()) return f.Fail(EvalStatus::kInternalError, problem.status().message());
  auto calibration = GetCalibration();
  if (!calibration.ok())
    return f.Fail(EvalStatus::kInternalError, "calibration failed: " + calibration.status().message());
  result.hardware = calibration->hardware;
  result.hardware["peak_gflops"] = calibration->peak_gflops;

  // 1. Static checks on the text.
  int64_t t_check = f.Now();
  if (s.static_checks) {
    Status st = judge::CheckSource(request.source);
    if (!st.ok()) return f.Fail(EvalStatus::kStaticCheckFailed, st.message());
  }
  double check_s = f.SecondsSince(t_check);
  if (f.Cancelled()) return f.Fail(EvalStatus::kCancelled, "cancelled");

  // 2. Compile, in a work folder of this evaluation's own.
  const std::string work = f.WorkDirName(options_.cache_dir, "");
  const WorkDirCleanup cleanup{env, work, options_.keep_work_dirs};
  if (Status st = env->CreateDirs(work); !st.ok()) return f.Fail(EvalStatus::kInternalError, st.ToString());
  std::string so, compare_so;
  if (auto x = CompileKernel(env, options_.compiler, work, "kernel", request.source, s, cancel, false,
                             options_.cache_dir, &so, &result.timings.compile_s, s.static_checks))
    return stopped(*x);
  result.compiled = true;

  // 3. Checks on the object; the comparison kernel (the problem's baseline,
  // trusted less than the judge: it also runs in a runner), compiled the
  // same way.
  t_check = f.Now();
  if (s.static_checks)
    if (auto x = CheckObject(env, so, problem->function)) return stopped(*x);
  if (!request.compare_source.empty())
    if (auto x = CompileKernel(env, options_.compiler, work, "compare", request.compare_source, s, cancel, true,
                               options_.cache_dir, &compare_so, nullptr, false))
      return stopped(*x);

  // 4. Harness and references (cached per problem).
  auto harness = harnesses_.Get(*problem, cancel);
  if (!harness.ok()) return f.FailStep(harness.status());
  auto secret = harnesses_.Secret();
  if (!secret.ok()) return f.Fail(EvalStatus::kInternalError, "judge secret: " + secret.status().message());
  double call_s = 0;
  {
    MutexLock lock(&call_s_mu_);
    if (auto it = call_s_.find(harness->dir); it != call_s_.end()) call_s = it->second;
  }
  std::vector<judge::CaseSpec> cases = judge::MakeCases(
      *problem, s, *secret, [env] { return env->RandomU64(); }, call_s);
  const size_t pool_size = judge::TimingPoolSize(*problem, s, call_s);
  size_t from_stock = 0;
  auto refs = harnesses_.References(*problem, *harness, cases, work + "/pool", cancel, &from_stock);
  if (!refs.ok()) return f.FailStep(refs.status(), /*whole_reason=*/true);
  if (stock_) stock_->Want(*problem, *harness, pool_size, s);
  result.profile["timing_cases_from_stock"] = static_cast<double>(from_stock);
  check_s += f.SecondsSince(t_check);
  result.timings.check_s = check_s;

  // 5. Judge: a trusted process that starts the runner, checks and times.
  std::string job = judge::JobText(*problem, "judge", so, harness->runner, cases, *refs, s);
  if (!compare_so.empty()) job += "compare_so " + compare_so + "\n";
  const int64_t t_run = f.Now();
  auto run =
      env->RunProcess(JudgeProcess(harness->judge, std::move(job), s, calibration->hardware.value("cores", 1), cancel));
  result.timings.measure_s = f.SecondsSince(t_run);
  if (!run.ok()) return f.Fail(EvalStatus::kInternalError, "cannot start the judge: " + run.status().message());
  result.sandbox = {{"network_isolated", run->network_isolated},
                    {"ipc_isolated", run->ipc_isolated},
                    {"memory_limit_mb", s.memory_limit_mb},
                    {"timeout_s", s.timeout_s},
                    {"separate_judge", true}};
  judge::JudgeOutcome judged = judge::ReadJudgeOutcome(*run, cases, s.timeout_s);
  result.runner_diagnostics = judged.runner_diagnostics;  // for a human; never in a prompt
  if (!judged.passed) return f.Fail(judged.status, judged.reason, judged.error_text);
  const json& h = judged.verdict;
  if (const double single_ns = h.value("single_call_ns", 0.0); single_ns > 0) {
    {
      MutexLock lock(&call_s_mu_);
      call_s_[harness->dir] = single_ns * 1e-9;
    }
    // The next evaluation's pool, now that the call's time is known (the
    // first evaluation of a problem sized its pool by bytes alone): the
    // stock is filled to it before that evaluation, not made on its clock.
    if (stock_) stock_->Want(*problem, *harness, judge::TimingPoolSize(*problem, s, single_ns * 1e-9), s);
  }
  result.sandbox["seccomp"] = h.value("seccomp", false);
  result.sandbox["landlock_abi"] = h.value("landlock_abi", 0);
  result.sandbox["cores"] = h.value("cores", json::array());
  result.correct = true;
  result.max_rel_error = h.value("max_rel_error", 0.0);

  // 6. Statistics, profile, roofline, the comparison, plausibility.
  result.latency = judge::LatencyOfVerdict(h);
  FillProfile(&result, h, *problem, *calibration, so);
  if (!compare_so.empty() && h.contains("compare_samples_ns")) result.comparison = Comparison(h, *result.latency, s);
  result.status = EvalStatus::kOk;
  const size_t checked = static_cast<size_t>(
      std::count_if(cases.begin(), cases.end(), [](const judge::CaseSpec& c) { return c.role == 'c'; }));
  result.reason = "correct on " + std::to_string(checked) + " cases and " + std::to_string(h.value("calls", 0L)) +
                  " timed calls on never-seen inputs; median " + std::to_string(result.latency->median_us) + " us";
  if (h.value("kept_round_contended", false))
    result.reason += "; timed beside other processes: they took " +
                     std::to_string(static_cast<int>(100 * h.value("kept_stolen_share", 0.0))) +
                     "% of the runner's runnable time in the kept round (no round was clean; profile.contended)";
  CheckPlausible(&result, s);
  return f.Finish(result);
}

}  // namespace accelopt::eval::cpu
