#include "daemon/config.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "base/env.hpp"
#include "base/log.hpp"
#include "daemon/backend_module.hpp"
#include "daemon/config_fields.hpp"
#include "llm/config.hpp"
#include "workflows/backend_traits.hpp"
#include "workflows/prompt_backend.hpp"

namespace accelopt::daemon {
namespace {

namespace fs = std::filesystem;

// listen: the unix socket (and its mode), the TCP address and its token.
Status ParseListen(const json& l, DaemonConfig* c) {
  ACCELOPT_RETURN_IF_ERROR(
      CheckKeys(l, "listen", {"unix", "unix_mode", "tcp", "tcp_token_env", "tcp_token_file", "write_timeout_s"}));
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
    ACCELOPT_RETURN_IF_ERROR(
        CheckKeys(rj, where, {"provider", "model", "temperature", "max_tokens", "reasoning_effort"}));
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

// evaluators: each section read by its backend's module (backend_module.hpp).
Status ParseEvaluators(const json& e, const ConfigPaths& paths, DaemonConfig* c) {
  std::set<std::string> names;
  for (const BackendModule& m : BackendModules()) names.insert(m.name);
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(e, "evaluators", names));
  for (const auto& [name, section] : e.items()) {
    const std::string where = "evaluators." + name;
    const BackendModule* m = FindBackendModule(name);
    // Every table keyed by a backend's name has its row, or the start stops
    // here: no silent default for a backend added without one.
    if (!workflows::FindTraits(name))
      return InvalidArgument(where + ": backend '" + name +
                             "' has no row in workflows/backend_traits.cpp (its kernels' "
                             "language and files; a registered module adds one with workflows::RegisterBackendTraits)");
    if (!workflows::FindBackendPrompts(name))
      return InvalidArgument(where + ": backend '" + name +
                             "' has no prompt set in workflows/prompt_backend.cpp (a "
                             "registered module adds one with workflows::RegisterBackendPrompts)");
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(section, where, m->keys));
    BackendConfig bc;
    bc.section = section;
    ACCELOPT_RETURN_IF_ERROR(m->parse(section, where, paths, &bc));
    c->evaluators[name] = bc;
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
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(j, "",
                                     {"state_dir", "listen", "providers", "roles", "evaluators", "suites",
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
  if (j.contains("evaluators"))
    ACCELOPT_RETURN_IF_ERROR(ParseEvaluators(j["evaluators"], ConfigPaths{base_dir, c.state_dir}, &c));
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
    if (!v || v->empty())
      return InvalidArgument("listen.tcp_token_env: environment variable " + config.tcp_token_env + " is not set");
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
  if (!token.empty() && token.size() < 16)
    return InvalidArgument("listen: the TCP token must be at least 16 characters");
  RegisterSecret(token);
  return token;
}

}  // namespace accelopt::daemon
