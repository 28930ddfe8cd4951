#include "daemon/config.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "base/env.hpp"
#include "base/log.hpp"
#include "llm/config.hpp"

namespace accelopt::daemon {
namespace {

namespace fs = std::filesystem;

Status CheckKeys(const json& obj, const std::string& where, const std::set<std::string>& allowed) {
  if (!obj.is_object()) return InvalidArgument(where + ": must be an object");
  for (const auto& [k, v] : obj.items()) {
    if (!allowed.count(k)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      return InvalidArgument((where.empty() ? k : where + "." + k) + ": unknown key (expected one of: " + list + ")");
    }
  }
  return Status::Ok();
}

template <typename T>
Status Get(const json& obj, const std::string& key, const std::string& where, T& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return Status::Ok();
  std::string field = where.empty() ? key : where + "." + key;
  try {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!it->is_string()) return InvalidArgument(field + ": must be a string");
    } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, unsigned>) {
      if (!it->is_number_integer()) return InvalidArgument(field + ": must be an integer");
      if (!IntegerFits<T>(*it)) return InvalidArgument(field + ": out of range");
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!it->is_number()) return InvalidArgument(field + ": must be a number");
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!it->is_boolean()) return InvalidArgument(field + ": must be true or false");
    }
    out = it->get<T>();
  } catch (const json::exception&) {
    return InvalidArgument(field + ": wrong type");
  }
  return Status::Ok();
}

std::string Resolve(const std::string& base, const std::string& p) {
  if (p.empty() || p[0] == '/') return p;
  return (fs::path(base) / p).lexically_normal().string();
}

}  // namespace

namespace {

// listen: the unix socket (and its mode), the TCP address and its token.
Status ParseListen(const json& l, DaemonConfig* c) {
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(l, "listen", {"unix", "unix_mode", "tcp", "tcp_token_env", "tcp_token_file",
                                                     "write_timeout_s"}));
  ACCELOPT_RETURN_IF_ERROR(Get(l, "unix", "listen", c->unix_socket));
  std::string mode;
  ACCELOPT_RETURN_IF_ERROR(Get(l, "unix_mode", "listen", mode));
  if (!mode.empty()) {
    char* end = nullptr;
    unsigned long m = std::strtoul(mode.c_str(), &end, 8);
    if (*end || m > 0777) return InvalidArgument("listen.unix_mode: must be an octal string like \"0660\"");
    if (m & 0007) return InvalidArgument("listen.unix_mode: the socket must not be world-accessible");
    c->unix_mode = static_cast<unsigned>(m);
  }
  ACCELOPT_RETURN_IF_ERROR(Get(l, "tcp", "listen", c->tcp));
  ACCELOPT_RETURN_IF_ERROR(Get(l, "tcp_token_env", "listen", c->tcp_token_env));
  ACCELOPT_RETURN_IF_ERROR(Get(l, "tcp_token_file", "listen", c->tcp_token_file));
  ACCELOPT_RETURN_IF_ERROR(Get(l, "write_timeout_s", "listen", c->write_timeout_s));
  if (c->write_timeout_s < 1 || c->write_timeout_s > 3600)
    return InvalidArgument("listen.write_timeout_s: must be between 1 and 3600 seconds");
  if (c->tcp.empty()) return Status::Ok();
  auto colon = c->tcp.rfind(':');
  if (colon == std::string::npos || colon + 1 == c->tcp.size())
    return InvalidArgument("listen.tcp: must be host:port, e.g. 127.0.0.1:7070");
  const std::string port = c->tcp.substr(colon + 1);
  char* end = nullptr;
  unsigned long n = std::strtoul(port.c_str(), &end, 10);
  if (port.empty() || *end || port[0] == '-' || port[0] == '+' || n < 1 || n > 65535)
    return InvalidArgument("listen.tcp: the port '" + port + "' is not a number from 1 to 65535");
  c->tcp_port = static_cast<unsigned short>(n);
  if (c->tcp_token_env.empty() && c->tcp_token_file.empty())
    return InvalidArgument("listen.tcp: TCP needs a bearer token: set listen.tcp_token_env or listen.tcp_token_file");
  return Status::Ok();
}

// roles: planner, executor, summarizer, each naming a configured provider.
Status ParseRoles(const json& r, DaemonConfig* c) {
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(r, "roles", {"planner", "executor", "summarizer"}));
  for (const auto& [name, rj] : r.items()) {
    std::string where = "roles." + name;
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(rj, where, {"provider", "model", "temperature", "max_tokens", "reasoning_effort"}));
    RoleConfig rc;
    ACCELOPT_RETURN_IF_ERROR(Get(rj, "provider", where, rc.provider));
    ACCELOPT_RETURN_IF_ERROR(Get(rj, "model", where, rc.model));
    ACCELOPT_RETURN_IF_ERROR(Get(rj, "temperature", where, rc.temperature));
    ACCELOPT_RETURN_IF_ERROR(Get(rj, "max_tokens", where, rc.max_tokens));
    ACCELOPT_RETURN_IF_ERROR(Get(rj, "reasoning_effort", where, rc.reasoning_effort));
    if (rc.provider.empty()) return InvalidArgument(where + ".provider: required");
    if (rc.model.empty()) return InvalidArgument(where + ".model: required");
    if (!c->providers.contains(rc.provider))
      return InvalidArgument(where + ".provider: no provider named '" + rc.provider + "' in providers");
    if (rc.max_tokens <= 0) return InvalidArgument(where + ".max_tokens: must be positive");
    if (rc.temperature < 0 || rc.temperature > 2) return InvalidArgument(where + ".temperature: must be in [0, 2]");
    c->roles[name] = rc;
  }
  return Status::Ok();
}

// Where relative paths of a backend section are resolved, and the state
// folder its default cache lives under.
struct Paths {
  const std::string& base_dir;
  const std::string& state_dir;
};

// devices (cuda, triton): one slot per listed GPU; slots, when given, must agree.
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
    if (!d[i].is_number_unsigned() || d[i].get<uint64_t>() >= 64) return InvalidArgument(w + ": CUDA device ids are integers 0..63");
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
      if (!v.is_number_unsigned() || v.get<uint64_t>() >= 1024) return InvalidArgument(w + ": CPU numbers are integers 0..1023");
      cores.push_back(static_cast<int>(v.get<uint64_t>()));
    }
    bc->slot_cores.push_back(cores);
  }
  return Status::Ok();
}

// executor (cpu): "local" (the default) or a Slurm cluster.
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

// What every host-side backend section (cpu, cuda, triton) shares: slots,
// the cache folder, the calibration's patience, and the checks on them.
Status ParseHostCommon(const json& ej, const std::string& where, const std::string& name, const Paths& paths,
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

Status ParseCpu(const json& ej, const std::string& where, const Paths& paths, BackendConfig* bc) {
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "slots", where, bc->slots));
  ACCELOPT_RETURN_IF_ERROR(ParseSlotCores(ej, where, bc));
  ACCELOPT_RETURN_IF_ERROR(ParseHostCommon(ej, where, "cpu", paths, bc));
  return ParseExecutor(ej, where, "cpu", bc);
}

Status ParseCuda(const json& ej, const std::string& where, const Paths& paths, BackendConfig* bc) {
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "slots", where, bc->slots));
  ACCELOPT_RETURN_IF_ERROR(ParseGpuDevices(ej, where, bc));
  return ParseHostCommon(ej, where, "cuda", paths, bc);
}

Status ParseTriton(const json& ej, const std::string& where, const Paths& paths, BackendConfig* bc) {
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "slots", where, bc->slots));
  ACCELOPT_RETURN_IF_ERROR(Get(ej, "python", where, bc->python));
  if (bc->python.empty() || bc->python[0] != '/' || bc->python.find_first_of(" \t\n") != std::string::npos)
    return InvalidArgument(where + ".python: required, the absolute path (no spaces) of the interpreter with "
                                   "torch and triton");
  ACCELOPT_RETURN_IF_ERROR(ParseGpuDevices(ej, where, bc));
  return ParseHostCommon(ej, where, "triton", paths, bc);
}

Status ParseNki(const json& ej, const std::string& where, const Paths& paths, BackendConfig* bc) {
  auto nc = eval::nki::NkiConfig::FromJson(ej, where);
  if (!nc.ok()) return nc.status();
  // "auto": 0 here; the daemon's start counts the cores with neuron-ls (backend_start.cpp).
  bc->slots = static_cast<int>(nc->cores.size());
  bc->cache_dir = paths.state_dir + "/cache/nki";
  if (nc->work_dir.empty()) nc->work_dir = bc->cache_dir + "/work";
  else nc->work_dir = Resolve(paths.base_dir, nc->work_dir);
  bc->nki = *nc;
  return Status::Ok();
}

// One row per backend: the keys of its section of "evaluators" and how the
// section is read (the daemon's starters are the other half:
// backend_start.cpp).
struct BackendSection {
  const char* name;
  std::set<std::string> keys;
  Status (*parse)(const json& section, const std::string& where, const Paths& paths, BackendConfig* out);
};

const std::vector<BackendSection>& BackendSections() {
  static const std::vector<BackendSection> kSections = {
      {"cpu",
       {"slots", "cache_dir", "slot_cores", "calibration_force_busy", "calibration_attempts", "calibration_retry_wait_s",
        "calibration_retry_after_s", "executor"},
       ParseCpu},
      {"cuda", {"slots", "cache_dir", "devices"}, ParseCuda},
      {"nki", {eval::nki::NkiConfig::Keys().begin(), eval::nki::NkiConfig::Keys().end()}, ParseNki},
      {"triton", {"slots", "cache_dir", "devices", "python"}, ParseTriton},
  };
  return kSections;
}

Status ParseEvaluators(const json& e, const Paths& paths, DaemonConfig* c) {
  std::set<std::string> names;
  for (const auto& row : BackendSections()) names.insert(row.name);
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(e, "evaluators", names));
  for (const auto& [name, ej] : e.items()) {
    const std::string where = "evaluators." + name;
    for (const auto& row : BackendSections()) {
      if (name != row.name) continue;
      ACCELOPT_RETURN_IF_ERROR(CheckKeys(ej, where, row.keys));
      BackendConfig bc;
      ACCELOPT_RETURN_IF_ERROR(row.parse(ej, where, paths, &bc));
      c->evaluators[name] = bc;
    }
  }
  return Status::Ok();
}

// limits: how many campaigns run at once, their share of the LLM providers,
// how often a provider that is down is probed.
Status ParseLimits(const json& l, DaemonConfig* c) {
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(l, "limits",
                                     {"max_active_campaigns", "llm_share_per_campaign", "provider_probe_initial_ms",
                                      "provider_probe_max_ms", "max_llm_in_flight_per_campaign"}));
  ACCELOPT_RETURN_IF_ERROR(Get(l, "max_active_campaigns", "limits", c->max_active_campaigns));
  ACCELOPT_RETURN_IF_ERROR(Get(l, "max_llm_in_flight_per_campaign", "limits", c->max_llm_in_flight_per_campaign));
  if (c->max_llm_in_flight_per_campaign < 0 || c->max_llm_in_flight_per_campaign > 4096)
    return InvalidArgument("limits.max_llm_in_flight_per_campaign: must be 0 (from the providers) to 4096");
  ACCELOPT_RETURN_IF_ERROR(Get(l, "llm_share_per_campaign", "limits", c->llm_share_per_campaign));
  ACCELOPT_RETURN_IF_ERROR(Get(l, "provider_probe_initial_ms", "limits", c->provider_probe_initial_ms));
  ACCELOPT_RETURN_IF_ERROR(Get(l, "provider_probe_max_ms", "limits", c->provider_probe_max_ms));
  if (c->provider_probe_initial_ms < 1) return InvalidArgument("limits.provider_probe_initial_ms: must be at least 1");
  if (c->provider_probe_max_ms < c->provider_probe_initial_ms)
    return InvalidArgument("limits.provider_probe_max_ms: must be at least provider_probe_initial_ms");
  if (c->max_active_campaigns < 1) return InvalidArgument("limits.max_active_campaigns: must be at least 1");
  if (c->llm_share_per_campaign <= 0 || c->llm_share_per_campaign > 1)
    return InvalidArgument("limits.llm_share_per_campaign: must be in (0, 1]");
  return Status::Ok();
}

}  // namespace

Result<DaemonConfig> ParseDaemonConfig(const json& j, const std::string& base_dir, Env* env) {
  DaemonConfig c;
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(j, "", {"state_dir", "listen", "providers", "roles", "evaluators", "suites",
                                             "suite_uploads", "search", "memory", "limits"}));
  ACCELOPT_RETURN_IF_ERROR(Get(j, "state_dir", "", c.state_dir));
  c.state_dir = Resolve(base_dir, c.state_dir);
  if (c.state_dir.empty()) return InvalidArgument("state_dir: must not be empty");
  if (j.contains("listen")) ACCELOPT_RETURN_IF_ERROR(ParseListen(j["listen"], &c));
  c.unix_socket = Resolve(base_dir, c.unix_socket);

  if (j.contains("providers")) {
    if (!j["providers"].is_object()) return InvalidArgument("providers: must be an object");
    c.providers = j["providers"];
    // The same parse the daemon's ProviderSet does at start, so that
    // --check-config refuses what the start would.
    if (auto parsed = llm::ParseProvidersConfig(c.providers); !parsed.ok()) return parsed.status();
  }
  if (j.contains("roles")) ACCELOPT_RETURN_IF_ERROR(ParseRoles(j["roles"], &c));
  if (j.contains("evaluators")) ACCELOPT_RETURN_IF_ERROR(ParseEvaluators(j["evaluators"], Paths{base_dir, c.state_dir}, &c));
  if (c.evaluators.empty()) {
    BackendConfig bc;
    bc.cache_dir = c.state_dir + "/cache/cpu";
    c.evaluators["cpu"] = bc;
  }

  if (j.contains("suites")) {
    const json& s = j["suites"];
    if (!s.is_object()) return InvalidArgument("suites: must be an object of name -> folder");
    for (const auto& [name, v] : s.items()) {
      if (!v.is_string()) return InvalidArgument("suites." + name + ": must be a folder path");
      c.suites[name] = Resolve(base_dir, v.get<std::string>());
      if (!env->IsDirectory(c.suites[name]))
        return InvalidArgument("suites." + name + ": no such folder: " + c.suites[name]);
    }
  }
  ACCELOPT_RETURN_IF_ERROR(Get(j, "suite_uploads", "", c.suite_uploads));
  if (j.contains("search")) {
    if (!j["search"].is_object()) return InvalidArgument("search: must be an object");
    c.search = j["search"];
  }
  if (j.contains("memory")) {
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(j["memory"], "memory", {"default_bank"}));
    ACCELOPT_RETURN_IF_ERROR(Get(j["memory"], "default_bank", "memory", c.default_memory_bank));
  }
  if (j.contains("limits")) ACCELOPT_RETURN_IF_ERROR(ParseLimits(j["limits"], &c));
  return c;
}

Result<DaemonConfig> LoadDaemonConfig(const std::string& path, Env* env) {
  auto j = ReadJsonFile(env, path);
  if (!j.ok()) return j.status();
  auto base = fs::path(path).parent_path().string();
  auto c = ParseDaemonConfig(*j, base.empty() ? "." : base, env);
  if (!c.ok()) return c.status().WithContext(path);
  return c;
}

Result<std::string> LoadTcpToken(const DaemonConfig& config, Env* env) {
  std::string token;
  if (!config.tcp_token_env.empty()) {
    const auto v = env->GetEnvVar(config.tcp_token_env);
    if (!v || v->empty()) return InvalidArgument("listen.tcp_token_env: environment variable " + config.tcp_token_env + " is not set");
    token = *v;
  } else if (!config.tcp_token_file.empty()) {
    std::string path = config.tcp_token_file;
    if (path[0] != '/') {
      if (const auto creds = env->GetEnvVar("CREDENTIALS_DIRECTORY")) path = *creds + "/" + path;
    }
    auto data = env->ReadFile(path);
    if (!data.ok()) return InvalidArgument("listen.tcp_token_file: cannot read " + path);
    token = *data;
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  }
  if (!token.empty() && token.size() < 16) return InvalidArgument("listen: the TCP token must be at least 16 characters");
  RegisterSecret(token);
  return token;
}

}  // namespace accelopt::daemon
