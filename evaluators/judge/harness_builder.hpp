// The judge and (for a backend that has the judge build it: the cpu
// backend) the runner, per problem, compiled once and cached by content
// hash (with the problem's identity) under <cache_dir>/harness/: the judge (harness/judge_main.cpp + the
// generated reference glue + the problem's reference.cpp; trusted) and the
// runner (the backend's RunnerBuild: for cpu, cpu/harness/runner_main.cpp +
// the generated kernel glue, linked -z now -z relro). Reference outputs of the pooled secret-seed cases are
// computed by the judge ("prepare" mode) and cached next to it
// (refs/<case hash>.bin, 0600; the runner cannot open any file), and so are
// the timing pool's inputs (in the same file, written by the judge the first
// time a case is used), so a candidate costs one compile and one judge run
// once a problem's pool exists. Each file is one verified unit (trailer with
// its name and checksum); one that does not verify is recomputed by the
// judge (harness/job.hpp ReadCaseFile).
//
// The cache is safe to share between threads and processes: files appear by
// atomic rename, and one in-process lock per key avoids duplicate builds.
// Every file access, random number and child process goes through the Env
// given to HarnessCache.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.hpp"
#include "base/env.hpp"
#include "base/status.hpp"
#include "evaluators/judge/reference_cache.hpp"
#include "evaluators/judge/embedded.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/protocol.hpp"

namespace accelopt::eval::judge {

// One case: inputs drawn from `seed` (derived from the judge secret, never
// one of the public seed numbers), with some inputs' distributions replaced
// (adversarial), optionally with a few elements of every input changed in
// place after drawing (perturb).
struct CaseSpec {
  std::string
      label;  // "seed 21", "seed 0, inputs changed in place", "adversarial: x ~ normal(0, 100)", "timing pool case 7"
  uint64_t seed = 0;
  bool perturb = false;
  std::vector<std::pair<int, Distribution>> overrides;  // param index -> distribution
  // 'c' a correctness case, called once; 'p' a timing pool case: its inputs
  // and reference are cached, and the judge gives it to each runner process
  // at most once (judge_main.cpp Timing).
  char role = 'c';
  bool fresh = false;  // a seed drawn for this evaluation only; the judge computes its reference
};

// How case seeds are drawn (docs/evaluation.md, "Inputs").
constexpr int kSeedPool = 8;                // secret seeds per named case; their references are cached
constexpr double kFreshCaseMaxFlops = 5e8;  // a fresh case (reference computed per evaluation) up to this size
// The timing pool: as many cases as kPoolBytes of cached inputs (fp32) and
// references (fp64) hold, at least kMinPool and at most kMaxPool. When an
// earlier evaluation measured the problem's calls (call_s, the correctness
// calls' median), a pool of cheap calls grows to what max_rounds timing
// rounds of min_time_s take (each case is timed once per evaluation, so a
// round of 0.4 ms calls had only 5 samples; a large problem's 16 cases gave
// 3 rounds of 4 samples where the judge wanted up to 5 rounds), up to
// kRoundsPoolBytes and kMaxRoundsPool; and any pool, whatever its bytes,
// holds what the rounds that always run (min_rounds) take with their
// warm-up and min_samples. It never shrinks below the size without call_s.
constexpr uint64_t kPoolBytes = 192ULL << 20;
constexpr int kMinPool = 16, kMaxPool = 256;
constexpr uint64_t kRoundsPoolBytes = 3ULL << 30;
constexpr int kMaxRoundsPool = 512;
constexpr int kPreparedPool = 8;  // pool cases made before the judge runs; the others on first use

// What makes a problem's cases, as a hash: the function, every parameter
// (kind, name, size, dtype, value, distribution) and the adversarial cases.
// Case seeds and the harness cache folder are keyed by it, never by the
// problem's name alone (two suites may have a problem of one name).
std::string ProblemIdentity(const Problem& problem);

// The number of timing pool cases of `problem` under `settings`; call_s: a
// call's time measured by an earlier evaluation (0: none).
int TimingPoolSize(const Problem& problem, const EvalSettings& settings = {}, double call_s = 0);

// The cases of one evaluation, in order: seeds[0], seeds[0] with inputs
// perturbed in place (if settings.perturbation), seeds[1..], the problem's
// adversarial cases (if settings.adversarial), one fresh case for problems of
// at most kFreshCaseMaxFlops — all correctness cases ('c') — then the
// TimingPoolSize(problem, settings, call_s) timing pool cases ('p', when settings.seeds is not
// empty). Every named case's seed is H(secret, problem identity, label, pool
// index) with a pool index drawn per evaluation from `random`; the fresh
// case's seed is random(); a timing pool case's seed is H(secret, problem
// identity, "timing pool", random()): drawn for this evaluation (a case
// claimed from the stock brings its own inputs; References).
std::vector<CaseSpec> MakeCases(const Problem& problem, const EvalSettings& settings, const std::string& secret,
                                const std::function<uint64_t()>& random, double call_s = 0);

// The generated glue: AcceloptCallKernel for the runner, AcceloptCallReference
// for the judge, with the problem's documented signatures.
std::string RunnerGlueSource(const Problem& problem);
std::string JudgeGlueSource(const Problem& problem);

// The text the judge reads on stdin (evaluators/judge/harness/job.hpp).
std::string JobText(const Problem& problem, const std::string& mode, const std::string& so_path,
                    const std::string& runner_path, const std::vector<CaseSpec>& cases,
                    const std::vector<std::string>& ref_paths, const EvalSettings& settings);

class HarnessCache {
 public:
  // A backend's own runner, built beside the judge from the harness sources
  // (the cpu backend's: CpuRunnerBuild in cpu/cpu_backend.cpp). A backend
  // whose runner is built elsewhere (cuda's runner_main.cpp with nvcc,
  // triton's runner.py) gives none and Get builds the judge alone.
  struct RunnerBuild {
    std::vector<embedded::File> files;       // its own sources, written beside the judge's harness files
    std::string source;                      // its main, a path among `files`
    std::vector<std::string> compile_flags;  // for its main's object
    std::vector<std::string> link_flags;     // after the glue and the object
  };

  // max_bytes: the size limit of <cache_dir>/harness (reference_cache.hpp;
  // 0: none), enforced at most once a minute after Get. `runner`: the
  // backend's runner, if the judge builds it.
  HarnessCache(std::string cache_dir, std::string compiler, Env* env, uint64_t max_bytes = kDefaultReferenceCacheBytes,
               std::optional<RunnerBuild> runner = std::nullopt);

  struct Built {
    std::string judge;   // the judge executable (trusted; links reference.cpp)
    std::string runner;  // the runner executable (loads candidates); "" without a RunnerBuild
    std::string dir;     // its cache folder (refs/ lives here)
    bool fresh = false;  // built by this call
  };
  // kInvalidArgument (with compiler output) when the problem's reference does not compile.
  Result<Built> Get(const Problem& problem, const std::atomic<bool>* cancel);

  // Reference files for `cases` ("-" for fresh cases), computing the missing
  // ones of the correctness cases (cached in refs/, by case) and of the
  // first kPreparedPool timing cases. The timing cases are this
  // evaluation's alone: claimed from the problem's stock (case_stock.hpp)
  // into `pool_dir` (the evaluation's work folder, removed with it), the
  // rest given fresh names there and made by the judge on first use, within
  // a quarter of its timeout (job pool_make_budget_s). `from_stock`: how
  // many were claimed.
  Result<std::vector<std::string>> References(const Problem& problem, const Built& harness,
                                              const std::vector<CaseSpec>& cases, const std::string& pool_dir,
                                              const std::atomic<bool>* cancel, size_t* from_stock = nullptr);

  // Computes, while the evaluator is idle, the references of correctness
  // cases that evaluations under `settings` may draw and that are not cached
  // yet: every label's kSeedPool secret seeds (an evaluation draws one of
  // them at random; a miss costs a reference on its critical path). At most
  // `chunk` per call; returns how many are still missing then. Cancelled
  // (`cancel`): keeps the references finished so far.
  Result<size_t> WarmReferences(const Problem& problem, const Built& harness, const EvalSettings& settings,
                                size_t chunk, const std::atomic<bool>* cancel);

  // Adds up to `chunk` never-used timing cases (fresh secret-keyed seeds) to
  // the problem's stock while it holds fewer than `target`; returns how many
  // it holds then. Cancelled (`cancel`): keeps the cases finished so far.
  Result<size_t> RefillStock(const Problem& problem, const Built& harness, size_t target, size_t chunk,
                             const std::atomic<bool>* cancel);

  // The judge secret: 32 random bytes (hex) in <cache_dir>/judge-secret,
  // mode 0600, created on first use. Case seeds are derived from it.
  Result<std::string> Secret();

  // What the last eviction pass found (bytes in the cache, bytes removed).
  CacheUsage Usage();

 private:
  static constexpr int64_t kEvictEveryUs = 60'000'000;
  // Runs the judge in prepare mode on `cases`, writing `paths`; durable:
  // the files are on disk before it returns (the idle refills: their write
  // back must not land in the next evaluation).
  Status RunPrepare(const Problem& problem, const Built& harness, const std::vector<CaseSpec>& cases,
                    const std::vector<std::string>& paths, const std::atomic<bool>* cancel, bool durable = false);
  void MaybeEvict(const std::string& version, const std::string& in_use);
  std::shared_ptr<Mutex> KeyLock(const std::string& key);
  struct Objects {
    std::string judge_o, runner_o;
  };
  Result<Objects> MainObjects(const std::atomic<bool>* cancel);

  // A fresh name next to `path` for a file renamed onto it.
  std::string TempName(const std::string& path);

  std::string cache_dir_;
  std::string compiler_;
  Env* const env_;
  const std::optional<RunnerBuild> runner_;
  const uint64_t max_bytes_;
  Mutex mu_;
  Mutex evict_mu_;  // one eviction pass at a time
  std::map<std::string, std::shared_ptr<Mutex>> locks_ ACCELOPT_GUARDED_BY(mu_);
  int64_t last_evict_us_ ACCELOPT_GUARDED_BY(mu_) = 0;
  CacheUsage usage_ ACCELOPT_GUARDED_BY(mu_);
  std::string secret_ ACCELOPT_GUARDED_BY(mu_);
};

}  // namespace accelopt::eval::judge
