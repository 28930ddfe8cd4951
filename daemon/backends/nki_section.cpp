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
  auto nc = eval::nki::NkiConfig::FromJson(ej, where);
  if (!nc.ok()) return nc.status();
  // "auto": 0 here; the daemon's start counts the cores with neuron-ls (nki_module.cpp).
  bc->slots = static_cast<int>(nc->cores.size());
  bc->cache_dir = paths.state_dir + "/cache/nki";
  if (nc->work_dir.empty()) nc->work_dir = bc->cache_dir + "/work";
  else nc->work_dir = Resolve(paths.base_dir, nc->work_dir);
  bc->nki = *nc;
  return Status::Ok();
}

}  // namespace

BackendModule NkiSection() {
  return {"nki", {eval::nki::NkiConfig::Keys().begin(), eval::nki::NkiConfig::Keys().end()}, ParseNki, nullptr};
}

}  // namespace accelopt::daemon::backends
