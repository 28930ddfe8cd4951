#include "daemon/dev_mode.hpp"

#include <cstdio>
#include <filesystem>

#include "base/env.hpp"
#include "base/sha256.hpp"

namespace accelopt::daemon {
namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxSocketPath = 100;  // sun_path is 108 bytes

std::string EnvOr(Env* env, const char* name, const std::string& def) {
  const auto v = env->GetEnvVar(name);
  return v && !v->empty() ? *v : def;
}

}  // namespace

Result<DevSetup> PrepareDev(const DevOptions& o, Env* env) {
  DevSetup s;
  fs::path dir = o.dir.empty() ? EnvOr(env, "ACCELOPT_DEV_DIR", ".accelopt-dev") : o.dir;
  if (dir.is_relative()) dir = fs::path(env->CurrentDir()) / dir;
  s.dir = dir.lexically_normal().string();
  while (s.dir.size() > 1 && s.dir.back() == '/') s.dir.pop_back();
  if (Status st = env->CreateDirs(s.dir); !st.ok()) return st;
  (void)env->SetPermissions(s.dir, 0700);  // best effort, as before
  if (o.source_dir.empty() || !env->Exists(o.source_dir + "/suites/cpu"))
    return FailedPrecondition("--dev needs the source tree (its suites/cpu), not found at '" + o.source_dir +
                              "'; run a binary of a build tree, or configure an installed daemon with --config");

  json c = o.base.is_object() ? o.base : json::object();
  c["state_dir"] = s.dir + "/state";
  std::string socket = s.dir + "/acceloptd.sock";
  if (socket.size() > kMaxSocketPath)
    socket = EnvOr(env, "XDG_RUNTIME_DIR", "/tmp") + "/accelopt-dev-" + Sha256Hex(s.dir).substr(0, 12) + ".sock";
  c["listen"] = {{"unix", socket}, {"unix_mode", "0600"}};
  if (!o.tcp.empty()) {
    s.token_file = s.dir + "/token";
    if (!env->Exists(s.token_file)) {
      std::string token;
      for (int i = 0; i < 4; ++i) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(env->RandomU64()));
        token += hex;
      }
      if (Status st = env->WriteFileAtomic(s.token_file, token + "\n"); !st.ok()) return st;
    }
    (void)env->SetPermissions(s.token_file, 0600);
    c["listen"]["tcp"] = o.tcp;
    c["listen"]["tcp_token_file"] = s.token_file;
  }
  if (!c.contains("suites"))
    c["suites"] = {{"cpu", o.source_dir + "/suites/cpu"}, {"test", o.source_dir + "/tests/evaluators/problems"}};
  if (!c.contains("evaluators")) c["evaluators"] = {{"cpu", {{"slots", 1}}}};
  const std::string base_url = EnvOr(env, "ACCELOPT_LLM_BASE_URL", ""), model = EnvOr(env, "ACCELOPT_LLM_MODEL", "");
  if (!c.contains("providers") && !base_url.empty() && !model.empty()) {
    json p = {
        {"kind", "openai"}, {"base_url", base_url}, {"max_concurrency", 8}, {"models", {{model, json::object()}}}};
    if (!EnvOr(env, "ACCELOPT_LLM_API_KEY", "").empty()) p["api_key_env"] = "ACCELOPT_LLM_API_KEY";
    c["providers"] = {{"llm", p}};
    if (!c.contains("roles"))
      for (const char* role : {"planner", "executor", "summarizer"})
        c["roles"][role] = {{"provider", "llm"}, {"model", model}};
  }
  const std::string config_path = s.dir + "/acceloptd.json";
  if (Status st = env->WriteFileAtomic(config_path, c.dump(2) + "\n"); !st.ok()) return st;
  auto parsed = ParseDaemonConfig(c, s.dir, env);
  if (!parsed.ok()) return Status(parsed.status().code(), config_path + ": " + parsed.status().message());
  s.config = *parsed;
  return s;
}

std::string DevReadyLines(const DevSetup& s, unsigned short tcp_port) {
  std::string out = "ACCELOPT_SOCKET=" + s.config.unix_socket + "\n";
  if (!s.config.tcp.empty()) {
    std::string host = s.config.tcp.substr(0, s.config.tcp.rfind(':'));
    if (host == "0.0.0.0" || host == "::") host = "127.0.0.1";
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    out += "ACCELOPT_DASHBOARD=http://" + host + ":" + std::to_string(tcp_port) + "/ui/?token=$(cat " + s.token_file +
           ")\n";
  }
  return out;
}

}  // namespace accelopt::daemon
