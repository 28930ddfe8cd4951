// The cpu backend's config section ("evaluators.cpu"): its keys and
// their parse (the start: cpu_module.cpp).
#include <algorithm>

#include "daemon/backends/modules.hpp"
#include "daemon/backends/sections.hpp"
#include "daemon/config_fields.hpp"
#include "evaluators/slurm/slurm_options.hpp"

namespace accelopt::daemon::backends {
namespace {

// slot_cores (cpu): one CPU list per slot.
Status ParseSlotCores(const json& ej, const std::string& where, BackendConfig* bc) {
  if (!ej.contains("slot_cores")) return Status::Ok();
  const json& sc = ej["slot_cores"];
  if (!sc.is_array()) return InvalidArgument(where + ".slot_cores: must be an array of CPU lists, one per slot");
  for (size_t i = 0; i < sc.size(); ++i) {
    std::string w = where + ".slot_cores[" + std::to_string(i) + "]";
    if (!sc[i].is_array() || sc[i].empty()) return InvalidArgument(w + ": must be a non-empty array of CPU numbers");
    std::vector<int> cores;
    for (const auto& v : sc[i]) {
      if (!v.is_number_unsigned() || v.get<uint64_t>() >= 1024)
        return InvalidArgument(w + ": CPU numbers are integers 0..1023");
      cores.push_back(static_cast<int>(v.get<uint64_t>()));
    }
    bc->slot_cores.push_back(cores);
  }
  return Status::Ok();
}

Status ParseCpu(const json& ej, const std::string& where, const ConfigPaths& paths, BackendConfig* bc) {
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "slots", where, bc->slots));
  ACCELOPT_RETURN_IF_ERROR(ParseSlotCores(ej, where, bc));
  ACCELOPT_RETURN_IF_ERROR(ParseHostCommon(ej, where, "cpu", paths, bc));
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "reference_cache_max_gb", where, bc->reference_cache_max_gb));
  if (bc->reference_cache_max_gb < 0 || bc->reference_cache_max_gb > 1e6)
    return InvalidArgument(where + ".reference_cache_max_gb: must be between 0 (no limit) and 1000000");
  return ParseExecutor(ej, where, "cpu", bc);
}

}  // namespace

BackendModule CpuSection() {
  return {"cpu",
          {"slots", "cache_dir", "slot_cores", "calibration_force_busy", "calibration_attempts",
           "calibration_retry_wait_s", "calibration_retry_after_s", "executor", "reference_cache_max_gb"},
          ParseCpu,
          nullptr};
}

}  // namespace accelopt::daemon::backends
