// SlurmBackend: a Backend that runs each evaluation as a Slurm batch job
// (docs/evaluation.md, "Evaluations on Slurm").
//
// Each evaluation gets a folder <spool_dir>/<request id>/ on a file system
// the compute nodes share: request.json (the EvalRequest), job_id (the Slurm
// job that evaluates it, written durably right after `sbatch` answers),
// job-<id>.out (the job's stdout/stderr) and, at the end, result.json. The
// job runs `accelopt-eval job --request request.json --result result.json`
// on the node: the same cpu backend as a local evaluation, i.e. the trusted
// judge next to the untrusted runner, on the node. The daemon re-checks what
// comes back: result.json must name the sha256 of this request.json and
// parse as a strict EvalResult, an `ok` result must be correct and timed,
// and it is taken only from the folder of this request.
//
// Jobs are submitted with `sbatch --parsable` and watched with `scontrol
// show job` (no accounting database needed), not `srun`/`sbatch --wait`: a
// batch job does not depend on the submitting process, so a daemon killed
// while jobs are queued or running finds them again after a restart. The
// runtime re-runs the evaluation under the same activity id, which is the
// request id here (recorded in the event log's ActivityScheduled). Each
// job id is reported as the evaluation's placement (backend.hpp) right after
// `sbatch` answers, which the runtime appends to the event log
// (EvaluationPlaced) before the job is watched; after a restart that
// recorded job id is waited for (or its result taken) instead of submitting
// again. The folder's job_id file and, last, `squeue --name` (a daemon
// killed between sbatch's answer and the append) are the fallbacks; the log
// line says which one found the job.
//
// Outcomes that are not the candidate's: a job cancelled from outside
// (scancel) is a failed evaluation (internal_error, "cancelled"); a job
// that ran past its Slurm time limit is a timeout; node failure, preemption,
// boot failure and a job Slurm no longer knows (purged, lost with the
// controller's state) are resubmitted, up to `max_attempts` submissions in
// all, then a failed evaluation. The controller not answering for
// `controller_timeout_s`, or a job pending longer than `max_pending_s`,
// fails the evaluation (the job is cancelled): never a hang. Cancelling the
// evaluation (`cancel`) scancels the job and returns kCancelled.
//
// Thread safety: Evaluate may be called from many threads at once (one per
// dispatcher slot; `max_jobs` slots); each call owns its request's folder.
// Slurm's commands are separate processes (Env::RunProcess).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "evaluators/backend.hpp"
#include "evaluators/slurm/slurm_options.hpp"

namespace accelopt::eval::slurm {

// The Slurm time limit, in whole minutes, for a request's settings: the
// compile and run limits the node enforces itself, twice over, plus 2
// minutes for the calibration, the judge build and the references. It only
// catches a hung node-side evaluator; the candidate is stopped by the node's
// own limits long before.
int TimeLimitMinutes(const EvalSettings& s);

class SlurmBackend : public Backend {
 public:
  // `env` (required) must outlive the backend: files, clocks, sbatch/squeue
  // processes and the path of the running executable go through it.
  SlurmBackend(SlurmOptions options, Env* env);
  std::string name() const override { return options_.backend; }
  EvalResult Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) override;
  // Placement: {"executor": "slurm", "job_id", "attempt", "request_sha256"}.
  EvalResult EvaluatePlaced(const EvalRequest& request, const std::atomic<bool>* cancel,
                            const Placement& placement) override;

  const SlurmOptions& options() const { return options_; }

 private:
  struct JobEnd {
    std::string state;       // COMPLETED, CANCELLED, NODE_FAIL, ..., "UNKNOWN" (Slurm does not know the job)
    std::string detail;      // reason / exit code, for the message
    bool cancelled = false;  // our own cancel flag
    std::string error;       // the controller did not answer / the job pended too long
  };

  Result<std::string> Submit(const std::string& dir, const EvalRequest& request);
  JobEnd Watch(const std::string& job, const std::atomic<bool>* cancel);
  // JobState and Reason of `job`; "UNKNOWN" when Slurm does not know it.
  Result<std::pair<std::string, std::string>> Query(const std::string& job);
  void Cancel(const std::string& job);
  std::optional<EvalResult> ReadResult(const std::string& dir, const std::string& request_sha) const;
  Result<ProcessResult> Slurm(const std::string& tool, std::vector<std::string> args, int timeout_s = 30);

  SlurmOptions options_;
  Env* env_;
};

}  // namespace accelopt::eval::slurm
