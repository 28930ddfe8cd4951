// The Slurm executor's settings (`evaluators.<name>.executor` with kind
// "slurm"; docs/evaluation.md, "Evaluations on Slurm") and their parser.
// Plain data; FromJson is a pure function (thread-safe). Kept apart from
// SlurmBackend so the daemon's config parser (and its fuzzer) need only
// this.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::eval::slurm {

struct SlurmOptions {
  std::string backend = "cpu";           // the backend name requests carry
  std::string partition;                 // --partition; "" = the cluster's default
  int max_jobs = 4;                      // evaluations in Slurm at once (the dispatcher's slots)
  std::string spool_dir;                 // REQUIRED: shared with the nodes, same path there
  std::string eval_path;                 // accelopt-eval on the nodes (default: next to the daemon, same path)
  std::string node_cache_dir;            // --cache-dir of accelopt-eval on the nodes ("" = its default)
  bool force_busy = false;               // --force-busy on the nodes (test machines)
  int cpus_per_task = 0;                 // --cpus-per-task; 0 = --exclusive (the whole node)
  std::string gres;                      // --gres, e.g. "gpu:1" or "neuron:2" ("" = none)
  std::vector<std::string> sbatch_args;  // appended to sbatch's arguments
  // Appended to `accelopt-eval job` on the node: the backend's own flags,
  // as `accelopt-eval run` takes them (nki: --nki-python, --nki-cores,
  // --nki-generation, --nki-runner-dir).
  std::vector<std::string> job_args;
  int max_attempts = 3;                    // submissions per evaluation (node failure, preemption, lost job)
  double poll_s = 0.5;                     // how often the job's state is read
  double controller_timeout_s = 300;       // slurmctld unreachable this long: the evaluation fails
  double max_pending_s = 3600;             // a job pending this long is cancelled and the evaluation fails
  std::string bin_dir;                     // folder of sbatch, scontrol, scancel ("" = PATH)
  std::map<std::string, std::string> env;  // for Slurm's commands (e.g. SLURM_CONF)

  // From the daemon config's `evaluators.<name>.executor` object (kind
  // "slurm"); errors name the field under `where`.
  static Result<SlurmOptions> FromJson(const json& j, const std::string& where);
};

}  // namespace accelopt::eval::slurm
