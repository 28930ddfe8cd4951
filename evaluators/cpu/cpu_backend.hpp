// The cpu backend: evaluates a C++ kernel for a problem under suites/cpu/.
//
// One evaluation:
//   1. load the problem (problem.hpp) and the calibration (lazily, once);
//   2. static source checks (judge/cpp_rules.hpp);
//   3. compile the candidate as a shared object (toolchain.hpp, KernelFlags,
//      settings.compile_timeout_s); compiler errors come back in the result;
//   4. undefined-symbol allow-list and instruction checks on the object;
//   5. get the problem's judge and runner and the pooled reference outputs
//      (built/computed once, cached: harness_builder.hpp), and draw the
//      evaluation's cases from secret seeds (MakeCases);
//   6. run the judge (harness/judge_main.cpp) in a child process: own process
//      group, RLIMIT_AS = settings.memory_limit_mb, RLIMIT_CPU, RLIMIT_NOFILE,
//      private network namespace, empty environment, killed at
//      settings.timeout_s. The judge starts the untrusted runner (Landlock +
//      seccomp, pinned to settings.cores), checks every call's whole output
//      and times every call itself; with request.compare_source it times a
//      second kernel interleaved (docs/evaluation.md);
//   7. turn what happened into an EvalResult: status, reason, error text,
//      latency statistics, profile, roofline and percent of peak (status
//      "suspicious" when faster than the roofline or than max_speedup x the
//      baseline latency carried by the request).
//
// Every file access, clock reading, random number and child process goes
// through options.env (the object checks, judge/object_check.hpp, too: they
// read the compiled .so through it and parse it with libelf in memory).
//
// Thread safety: Evaluate may be called from many threads at once; each call
// works in its own folder under <cache_dir>/work/.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/mutex.hpp"
#include "evaluators/backend.hpp"
#include "evaluators/cpu/calibration.hpp"
#include "evaluators/judge/harness_builder.hpp"
#include "evaluators/judge/stock_keeper.hpp"

namespace accelopt::eval::cpu {

struct CpuBackendOptions {
  // REQUIRED: files, clocks, randomness and child processes (main()s and
  // test fixtures pass Env::Default() or a wrapper of it).
  Env* env = nullptr;
  std::string root = ".";        // relative problem paths are resolved against this folder
  std::string cache_dir;         // REQUIRED: harness builds, reference outputs, work folders
  std::string calibration_path;  // default: <cache_dir>/calibration.json
  std::string compiler = "g++";
  // When set, used instead of loading/measuring (tests, or a daemon that
  // already recorded a calibration event).
  std::optional<Calibration> calibration;
  bool keep_work_dirs = false;  // keep <cache_dir>/work/<id>/ for debugging
  // Size limit of <cache_dir>/harness (judge builds and cached references;
  // evaluators/judge/reference_cache.hpp); 0: none.
  uint64_t reference_cache_max_bytes = judge::kDefaultReferenceCacheBytes;
  // Fill each evaluated problem's stock of never-used timing cases while no
  // evaluation runs (evaluators/judge/stock_keeper.hpp): the daemon sets it;
  // without it (one-shot tools, tests) every evaluation makes its own
  // timing cases (within a quarter of its timeout).
  bool refill_stock = false;
};

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(CpuBackendOptions options);

  std::string name() const override { return "cpu"; }
  EvalResult Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) override;
  // {"reference_cache": {folder, bytes (at the last size check; null before
  // the first), limit_bytes (0: none), evicted_bytes (by the last check),
  // checked_at_unix}}.
  json Health() override;

  // The calibration in use (loads or measures it on first call:
  // LoadOrCalibrate with the default options, refused on a busy machine).
  Result<Calibration> GetCalibration();
  // Measures now (CalibrateAndSave: a few seconds, compared with the file it
  // replaces, refused on a busy machine), saves it to calibration_path and
  // uses it for every later evaluation.
  Result<Calibration> Recalibrate();
  // Uses `c` for every later evaluation: a calibration measured by the
  // caller's own procedure (the daemon: CalibrateAndSave with its options).
  // With refill_stock: whether every evaluated problem's stock of timing
  // cases is full (true without it). For benches that model idle time.
  bool StockFilled() { return !stock_ || stock_->Idle(); }
  void SetCalibration(Calibration c) {
    MutexLock lock(&calibration_mu_);
    calibration_ = std::move(c);
  }

 private:
  CpuBackendOptions options_;
  judge::HarnessCache harnesses_;
  std::unique_ptr<judge::StockKeeper> stock_;  // with refill_stock; after harnesses_ (destroyed first)
  Mutex calibration_mu_;
  std::optional<Calibration> calibration_ ACCELOPT_GUARDED_BY(calibration_mu_);
  // Each problem's call time as its last evaluation measured it (the
  // correctness calls' median, s), by harness folder: sizes its next timing
  // pool (judge::TimingPoolSize). In memory only; a restart measures again.
  Mutex call_s_mu_;
  std::map<std::string, double> call_s_ ACCELOPT_GUARDED_BY(call_s_mu_);
};

}  // namespace accelopt::eval::cpu
