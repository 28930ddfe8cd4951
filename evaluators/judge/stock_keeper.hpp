// Keeps the problems' stocks of never-used timing cases filled
// (case_stock.hpp), and their correctness references computed, while the
// evaluator is idle: a thread of its own that runs
// HarnessCache::WarmReferences and then HarnessCache::RefillStock for the
// problems evaluated lately, a chunk of cases at a time, only while no evaluation runs and after `idle_s` of
// quiet; an evaluation that starts cancels the refill in progress (the
// cases it finished stay). So the references of fresh timing cases cost
// idle time (an LLM call between evaluations), not an evaluation's.
//
// Thread safety: every method may be called from any thread. Ownership:
// holds the HarnessCache by pointer (it must outlive the keeper); the
// destructor stops and joins the thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <string>
#include <thread>

#include "base/mutex.hpp"
#include "evaluators/judge/harness_builder.hpp"

namespace accelopt::eval::judge {

class StockKeeper {
 public:
  // chunk: cases per judge run (a refill is cancelled between or inside
  // runs); idle_s: quiet time before a refill starts.
  StockKeeper(HarnessCache* cache, size_t chunk = 8, double idle_s = 2.0);
  ~StockKeeper();
  StockKeeper(const StockKeeper&) = delete;
  StockKeeper& operator=(const StockKeeper&) = delete;

  // An evaluation of `problem` (with its built harness) under `settings`
  // ended: the correctness references such evaluations may draw are to be
  // computed, and its stock filled up to `target` cases (the evaluation's
  // TimingPoolSize), or to the largest target an earlier evaluation of the
  // same harness wanted, if larger.
  void Want(const Problem& problem, const HarnessCache::Built& harness, size_t target,
            const EvalSettings& settings = {});
  // Brackets every evaluation: while one runs, no refill runs.
  void EvaluationStarted();
  void EvaluationEnded();
  // No problem's stock is wanted any more (every one filled, or given up).
  bool Idle();

 private:
  void Loop();

  HarnessCache* const cache_;
  const size_t chunk_;
  const double idle_s_;
  Mutex mu_;
  std::condition_variable cv_;
  struct Wanted {
    Problem problem;
    HarnessCache::Built harness;
    size_t target = 0;
    EvalSettings settings;
    bool references_warm = false;  // every correctness reference computed
  };
  std::map<std::string, Wanted> wanted_ ACCELOPT_GUARDED_BY(mu_);       // by harness folder
  std::map<std::string, size_t> most_wanted_ ACCELOPT_GUARDED_BY(mu_);  // by harness folder: largest target
  int active_ ACCELOPT_GUARDED_BY(mu_) = 0;
  bool stop_ ACCELOPT_GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point last_end_ ACCELOPT_GUARDED_BY(mu_){};
  std::atomic<bool> cancel_{false};  // set when an evaluation starts or the keeper stops
  std::thread thread_;
};

}  // namespace accelopt::eval::judge
