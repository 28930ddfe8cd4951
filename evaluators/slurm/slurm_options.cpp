#include "evaluators/slurm/slurm_options.hpp"

#include <set>
#include <sstream>

#include "base/strict_json.hpp"

namespace accelopt::eval::slurm {

Result<SlurmOptions> SlurmOptions::FromJson(const json& j, const std::string& where) {
  if (!j.is_object()) return InvalidArgument(where + ": must be an object");
  static const std::set<std::string> kKeys = {"kind",
                                              "partition",
                                              "max_jobs",
                                              "spool_dir",
                                              "eval_path",
                                              "node_cache_dir",
                                              "force_busy",
                                              "cpus_per_task",
                                              "gres",
                                              "sbatch_args",
                                              "job_args",
                                              "max_attempts",
                                              "poll_s",
                                              "controller_timeout_s",
                                              "max_pending_s",
                                              "bin_dir",
                                              "env"};
  for (const auto& [k, v] : j.items())
    if (!kKeys.count(k)) return UnknownKey(JsonPlace{"", where}, k, {kKeys.begin(), kKeys.end()});
  SlurmOptions o;
  auto str = [&](const char* k, std::string& out) -> Status {
    if (!j.contains(k)) return Status::Ok();
    if (!j[k].is_string()) return InvalidArgument(where + "." + k + ": must be a string");
    out = j[k].get<std::string>();
    return Status::Ok();
  };
  auto num = [&](const char* k, double lo, double hi, double& out) -> Status {
    if (!j.contains(k)) return Status::Ok();
    if (!j[k].is_number()) return InvalidArgument(where + "." + k + ": must be a number");
    double v = j[k].get<double>();
    if (!(v >= lo && v <= hi)) {
      std::ostringstream m;
      m << where << "." << k << ": must be between " << lo << " and " << hi;
      return InvalidArgument(m.str());
    }
    out = v;
    return Status::Ok();
  };
  std::string kind;
  ACCELOPT_RETURN_IF_ERROR(str("kind", kind));
  if (kind != "slurm") return InvalidArgument(where + ".kind: must be \"slurm\" here");
  ACCELOPT_RETURN_IF_ERROR(str("partition", o.partition));
  ACCELOPT_RETURN_IF_ERROR(str("spool_dir", o.spool_dir));
  ACCELOPT_RETURN_IF_ERROR(str("eval_path", o.eval_path));
  ACCELOPT_RETURN_IF_ERROR(str("node_cache_dir", o.node_cache_dir));
  ACCELOPT_RETURN_IF_ERROR(str("gres", o.gres));
  ACCELOPT_RETURN_IF_ERROR(str("bin_dir", o.bin_dir));
  double max_jobs = o.max_jobs, cpus = o.cpus_per_task, attempts = o.max_attempts;
  ACCELOPT_RETURN_IF_ERROR(num("max_jobs", 1, 4096, max_jobs));
  ACCELOPT_RETURN_IF_ERROR(num("cpus_per_task", 0, 4096, cpus));
  ACCELOPT_RETURN_IF_ERROR(num("max_attempts", 1, 100, attempts));
  ACCELOPT_RETURN_IF_ERROR(num("poll_s", 0.05, 60, o.poll_s));
  ACCELOPT_RETURN_IF_ERROR(num("controller_timeout_s", 1, 86400, o.controller_timeout_s));
  ACCELOPT_RETURN_IF_ERROR(num("max_pending_s", 1, 30 * 86400, o.max_pending_s));
  o.max_jobs = static_cast<int>(max_jobs);
  o.cpus_per_task = static_cast<int>(cpus);
  o.max_attempts = static_cast<int>(attempts);
  if (j.contains("force_busy")) {
    if (!j["force_busy"].is_boolean()) return InvalidArgument(where + ".force_busy: must be true or false");
    o.force_busy = j["force_busy"].get<bool>();
  }
  if (j.contains("sbatch_args")) {
    if (!j["sbatch_args"].is_array()) return InvalidArgument(where + ".sbatch_args: must be an array of strings");
    for (const auto& a : j["sbatch_args"]) {
      if (!a.is_string()) return InvalidArgument(where + ".sbatch_args: must be an array of strings");
      o.sbatch_args.push_back(a.get<std::string>());
    }
  }
  if (j.contains("job_args")) {
    if (!j["job_args"].is_array()) return InvalidArgument(where + ".job_args: must be an array of strings");
    for (const auto& a : j["job_args"]) {
      if (!a.is_string()) return InvalidArgument(where + ".job_args: must be an array of strings");
      o.job_args.push_back(a.get<std::string>());
    }
  }
  if (j.contains("env")) {
    if (!j["env"].is_object()) return InvalidArgument(where + ".env: must be an object of strings");
    for (const auto& [k, v] : j["env"].items()) {
      if (!v.is_string()) return InvalidArgument(where + ".env." + k + ": must be a string");
      o.env[k] = v.get<std::string>();
    }
  }
  if (o.spool_dir.empty() || o.spool_dir[0] != '/')
    return InvalidArgument(where + ".spool_dir: required, an absolute path on a file system the nodes share");
  return o;
}

}  // namespace accelopt::eval::slurm
