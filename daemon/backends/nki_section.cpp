// The nki backend's config section ("evaluators.nki"): its keys and
// their parse (the start: nki_module.cpp).
#include <algorithm>

#include "daemon/backends/modules.hpp"
#include "daemon/backends/sections.hpp"
#include "daemon/config_fields.hpp"
#include "evaluators/nki/nki_config.hpp"

namespace accelopt::daemon::backends {
namespace {

Status ParseNki(const json& ej, const std::string& where, const ConfigPaths& paths, BackendConfig* bc) {
  // "executor" (sections.hpp): with "slurm", every nki evaluation is a job
  // on a Trainium node (its NeuronCores the job's; the SDK, cores and LNC
  // are resolved there, `accelopt-eval job` with the executor's job_args).
  json local = ej;
  if (local.is_object()) local.erase("executor");
  auto nc = eval::nki::NkiConfig::FromJson(local, where);
  if (!nc.ok()) return nc.status();
  // "auto": 0 here; the daemon's start counts the cores with neuron-ls (nki_module.cpp).
  bc->slots = static_cast<int>(nc->cores.size());
  bc->cache_dir = paths.state_dir + "/cache/nki";
  if (nc->work_dir.empty())
    nc->work_dir = bc->cache_dir + "/work";
  else
    nc->work_dir = Resolve(paths.base_dir, nc->work_dir);
  bc->nki = *nc;
  return ParseExecutor(ej, where, "nki", bc);
}

}  // namespace

BackendModule NkiSection() {
  std::set<std::string> keys(eval::nki::NkiConfig::Keys().begin(), eval::nki::NkiConfig::Keys().end());
  keys.insert("executor");
  return {"nki", keys, ParseNki, nullptr};
}

}  // namespace accelopt::daemon::backends
