#include "daemon/backends/sections.hpp"

#include <algorithm>

#include "daemon/config_fields.hpp"
#include "evaluators/slurm/slurm_options.hpp"

namespace accelopt::daemon::backends {

Status ParseHostCommon(const json& ej, const std::string& where, const std::string& name, const ConfigPaths& paths,
                       BackendConfig* bc) {
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "cache_dir", where, bc->cache_dir));
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "calibration_force_busy", where, bc->calibration_force_busy));
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "calibration_attempts", where, bc->calibration_attempts));
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "calibration_retry_wait_s", where, bc->calibration_retry_wait_s));
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "calibration_retry_after_s", where, bc->calibration_retry_after_s));
  if (!(bc->calibration_retry_after_s >= 1 && bc->calibration_retry_after_s <= 86400))
    return InvalidArgument(where + ".calibration_retry_after_s: must be 1 to 86400 seconds");
  if (bc->calibration_attempts < 1 || bc->calibration_attempts > 10)
    return InvalidArgument(where + ".calibration_attempts: must be between 1 and 10");
  if (!(bc->calibration_retry_wait_s >= 0 && bc->calibration_retry_wait_s <= 3600))
    return InvalidArgument(where + ".calibration_retry_wait_s: must be between 0 and 3600 seconds");
  if (bc->slots < 1 || bc->slots > 256) return InvalidArgument(where + ".slots: must be between 1 and 256");
  if (!bc->slot_cores.empty() && static_cast<int>(bc->slot_cores.size()) != bc->slots)
    return InvalidArgument(where + ".slot_cores: must have one CPU list per slot (" + std::to_string(bc->slots) + ")");
  bc->cache_dir = bc->cache_dir.empty() ? paths.state_dir + "/cache/" + name : Resolve(paths.base_dir, bc->cache_dir);
  return Status::Ok();
}

Status ParseGpuDevices(const json& ej, const std::string& where, BackendConfig* bc) {
  if (!ej.contains("devices")) {
    if (ej.contains("slots") && bc->slots != 1)
      return InvalidArgument(where + ".slots: one slot per GPU: list the GPUs in " + where + ".devices");
    bc->devices = {0};
    return Status::Ok();
  }
  const json& d = ej["devices"];
  if (!d.is_array() || d.empty())
    return InvalidArgument(where + ".devices: must be a non-empty array of CUDA device ids, one slot each");
  for (size_t i = 0; i < d.size(); ++i) {
    const std::string w = where + ".devices[" + std::to_string(i) + "]";
    if (!d[i].is_number_unsigned() || d[i].get<uint64_t>() >= 64)
      return InvalidArgument(w + ": CUDA device ids are integers 0..63");
    const int id = static_cast<int>(d[i].get<uint64_t>());
    if (std::find(bc->devices.begin(), bc->devices.end(), id) != bc->devices.end())
      return InvalidArgument(w + ": device " + std::to_string(id) + " is listed twice (one slot per GPU)");
    bc->devices.push_back(id);
  }
  if (ej.contains("slots") && bc->slots != static_cast<int>(bc->devices.size()))
    return InvalidArgument(where + ".slots: must equal the number of devices (" + std::to_string(bc->devices.size()) +
                           "), or be left out");
  bc->slots = static_cast<int>(bc->devices.size());
  return Status::Ok();
}

Status NeedDir(Env* env, const std::string& dir, const std::string& field) {
  Status st = env->CreateDirs(dir);
  if (st.ok()) return st;
  return FailedPrecondition(field + ": cannot create " + dir + ": " + st.message());
}

Status ParseExecutor(const json& ej, const std::string& where, const std::string& name, BackendConfig* bc) {
  if (!ej.contains("executor")) return Status::Ok();
  const json& x = ej["executor"];
  if (!x.is_object() || !x.contains("kind") || !x["kind"].is_string())
    return InvalidArgument(where + ".executor.kind: must be \"local\" or \"slurm\"");
  if (x["kind"] == "slurm") {
    auto so = eval::slurm::SlurmOptions::FromJson(x, where + ".executor");
    if (!so.ok()) return so.status();
    so->backend = name;
    if (!bc->slot_cores.empty())
      return InvalidArgument(where + ".slot_cores: not with the slurm executor (the job's allocation decides)");
    bc->slots = so->max_jobs;
    bc->slurm = *so;
  } else if (x["kind"] != "local" || x.size() != 1) {
    return InvalidArgument(where + ".executor: \"local\" takes no other keys; kinds: \"local\", \"slurm\"");
  }
  return Status::Ok();
}

}  // namespace accelopt::daemon::backends
