#include "evaluators/judge/stock_keeper.hpp"

#include <algorithm>

#include "base/log.hpp"

namespace accelopt::eval::judge {

StockKeeper::StockKeeper(HarnessCache* cache, size_t chunk, double idle_s)
    : cache_(cache), chunk_(chunk), idle_s_(idle_s), thread_([this] { Loop(); }) {}

StockKeeper::~StockKeeper() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cancel_ = true;
  cv_.notify_all();
  thread_.join();
}

void StockKeeper::Want(const Problem& problem, const HarnessCache::Built& harness, size_t target,
                       const EvalSettings& settings) {
  {
    MutexLock lock(&mu_);
    // The largest pool any evaluation of this harness wanted: evaluations
    // under other settings (a 1-round check beside the default rounds) must
    // not shrink the stock below what the other kind claims.
    size_t& most = most_wanted_[harness.dir];
    most = std::max(most, target);
    wanted_[harness.dir] = Wanted{problem, harness, most, settings, false};
  }
  cv_.notify_all();
}

void StockKeeper::EvaluationStarted() {
  MutexLock lock(&mu_);
  ++active_;
  cancel_ = true;
}

void StockKeeper::EvaluationEnded() {
  {
    MutexLock lock(&mu_);
    --active_;
    last_end_ = std::chrono::steady_clock::now();
  }
  cv_.notify_all();
}

bool StockKeeper::Idle() {
  MutexLock lock(&mu_);
  return wanted_.empty();
}

void StockKeeper::Loop() {
  for (;;) {
    Wanted job;
    {
      MutexLock lock(&mu_);
      for (;;) {
        if (stop_) return;
        const auto quiet_at = last_end_ + std::chrono::milliseconds(static_cast<int64_t>(idle_s_ * 1000));
        if (active_ == 0 && !wanted_.empty() && std::chrono::steady_clock::now() >= quiet_at) break;
        if (active_ == 0 && !wanted_.empty())
          lock.WaitUntil(&cv_, quiet_at);
        else
          lock.Wait(&cv_);
      }
      job = wanted_.begin()->second;
      cancel_ = false;
    }
    if (!job.references_warm) {
      auto left = cache_->WarmReferences(job.problem, job.harness, job.settings, chunk_, &cancel_);
      MutexLock lock(&mu_);
      if (!left.ok()) {
        LogWarning("correctness references of '" + job.problem.name + "': " + left.status().ToString());
        wanted_.erase(job.harness.dir);  // tried again after its next evaluation
      } else if (*left == 0 && wanted_.count(job.harness.dir)) {
        wanted_[job.harness.dir].references_warm = true;
      }
      continue;
    }
    const size_t target = job.target;
    auto have = cache_->RefillStock(job.problem, job.harness, target, chunk_, &cancel_);
    MutexLock lock(&mu_);
    if (!have.ok()) {
      LogWarning("timing case stock of '" + job.problem.name + "': " + have.status().ToString());
      wanted_.erase(job.harness.dir);  // tried again after its next evaluation
      continue;
    }
    if (*have >= target) wanted_.erase(job.harness.dir);
  }
}

}  // namespace accelopt::eval::judge
