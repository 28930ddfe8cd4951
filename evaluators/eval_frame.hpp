// The frame the cpu, cuda and triton backends' Evaluate runs in (nki's has
// its own steps and budget, evaluators/nki/evaluate.cpp; the Slurm executor
// submits a job per request): the clock from the start, the result found so
// far, how a step fails or the whole evaluation finishes, the cancel flag,
// the problem's load and the evaluation's own work folder. A backend's
// Evaluate is then only its steps.
//
//   EvalFrame f(env, cancel);
//   auto problem = f.LoadProblemFor(request, root, "cuda");
//   if (!problem.ok()) return f.Fail(EvalStatus::kInternalError, problem.status().message());
//   ...
//   return f.Finish(std::move(result));
//
// Thread safety: one frame per evaluation, used by the thread running it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "base/env.hpp"
#include "base/status.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/protocol.hpp"

namespace accelopt::eval {

class EvalFrame {
 public:
  // `env` must outlive the frame; `cancel` may be null (never cancelled).
  EvalFrame(Env* env, const std::atomic<bool>* cancel);

  // What the evaluation has found so far (hardware, compiled, timings):
  // every Fail carries it.
  EvalResult result;

  // `r` with its error text truncated (TruncateErrorText) and total_s the
  // time since the frame was made.
  EvalResult Finish(EvalResult r) const;
  // The result so far, failed with `status`, `reason` and `text`, finished.
  EvalResult Fail(EvalStatus status, std::string reason, std::string text = "") const;
  // A step that failed with `st` (building a judge, a runner, the
  // references): kCancelled when the evaluation was cancelled meanwhile,
  // else kInternalError with the message's first line as the reason and
  // the whole message as the error text (`whole_reason`: the whole message
  // as the reason, no error text).
  EvalResult FailStep(const Status& st, bool whole_reason = false) const;

  bool Cancelled() const { return cancel_ && cancel_->load(); }
  // Seconds since `t0` (a MonotonicNanos reading).
  double SecondsSince(int64_t t0) const;
  int64_t Now() const { return env_->MonotonicNanos(); }

  // The problem `request` names (a relative folder is under `root`), which
  // must be a `backend` problem; the error says which it is.
  Result<Problem> LoadProblemFor(const EvalRequest& request, const std::string& root, const std::string& backend) const;

  // A fresh folder name under <cache_dir>/work for this evaluation:
  // "<prefix><pid>-<random>" (not created).
  std::string WorkDirName(const std::string& cache_dir, const std::string& prefix) const;

 private:
  Env* const env_;
  const std::atomic<bool>* const cancel_;
  const int64_t t_start_;
};

// Removes the work folders under <cache_dir>/work that no running process
// owns: "<prefix><pid>-<random>" whose pid is not alive (Env::ProcessAlive).
// An evaluation removes its own folder when it ends (WorkDirCleanup); a
// process killed during one (SIGKILL, a crash, an OOM kill) leaves it, with
// its compiled kernel and its timing cases (~140 MB for a test problem, GBs
// for a suite's). Each backend sweeps when it is made. Folders of live pids,
// and names that are not of this form, are left alone. A cache shared by
// processes in different pid namespaces must not be swept (each daemon's
// cache is its own: <state_dir>/cache/<backend>). Returns how many were
// removed; errors are ignored (the next sweep tries again).
int SweepOrphanWorkDirs(Env* env, const std::string& cache_dir);

// Removes `dir` (through `env`) when it goes out of scope, unless `keep`.
struct WorkDirCleanup {
  Env* env;
  std::string dir;
  bool keep;
  ~WorkDirCleanup() {
    if (!keep) (void)env->RemoveAll(dir);
  }
};

}  // namespace accelopt::eval
