#include "daemon/spec_check.hpp"

#include "workflows/campaign_request.hpp"

namespace accelopt::daemon {

Result<json> ResolveRole(const DaemonConfig& config, const std::vector<llm::ProviderConfig>& providers,
                         const std::string& role, json r) {
  if (!r.is_object()) return InvalidArgument("roles." + role + ": must be an object");
  auto cfg = config.roles.find(role);
  if (cfg != config.roles.end()) {
    if (!r.contains("provider")) r["provider"] = cfg->second.provider;
    if (!r.contains("model")) r["model"] = cfg->second.model;
    if (!r.contains("temperature")) r["temperature"] = cfg->second.temperature;
    if (!r.contains("max_tokens")) r["max_tokens"] = cfg->second.max_tokens;
    if (!r.contains("reasoning") && !cfg->second.reasoning_effort.empty())
      r["reasoning"] = cfg->second.reasoning_effort;
  }
  if (!r.contains("provider") || !r.contains("model")) {
    return InvalidArgument("roles." + role +
                           ": no provider/model given and none configured in the daemon's roles "
                           "(fix: give roles." +
                           role + ".provider and .model in the spec, or set roles." + role + " in the daemon config)");
  }
  if (!r.contains("pricing") && r["provider"].is_string() && r["model"].is_string()) {
    for (const auto& p : providers) {
      if (p.name != r["provider"].get<std::string>()) continue;
      auto m = p.models.find(r["model"].get<std::string>());
      if (m != p.models.end()) {
        r["pricing"] = {{"input_usd_per_mtok", m->second.input_per_mtok},
                        {"output_usd_per_mtok", m->second.output_per_mtok}};
      }
    }
  }
  return r;
}

Result<json> CompleteSpec(const DaemonConfig& config, const std::vector<llm::ProviderConfig>& providers, json spec) {
  if (!spec.is_object()) return InvalidArgument("spec: must be a JSON object");
  if (!spec.contains("suite")) spec["suite"] = "suites/cpu";
  // Roles: the config's mapping, overridden field by field by the spec.
  json roles = spec.value("roles", json::object());
  if (!roles.is_object()) return InvalidArgument("roles: must be an object");
  for (const char* role : {workflows::kRolePlanner, workflows::kRoleExecutor, workflows::kRoleSummarizer}) {
    ACCELOPT_ASSIGN_OR_RETURN(roles[role], ResolveRole(config, providers, role, roles.value(role, json::object())));
  }
  spec["roles"] = roles;
  // A shared bank without a name is the daemon's default bank.
  if (spec.contains("memory") && spec["memory"].is_object() && spec["memory"].value("scope", "") == "bank" &&
      !spec["memory"].contains("bank")) {
    spec["memory"]["bank"] = config.default_memory_bank;
  }
  if (!spec.contains("search") && !config.search.empty())
    spec["search"] = config.search;
  else if (spec.contains("search") && spec["search"].is_object()) {
    json merged = config.search;
    for (const auto& [k, v] : spec["search"].items()) merged[k] = v;
    spec["search"] = merged;
  }
  return spec;
}

workflows::ModelCheck ModelCheckFor(const std::vector<llm::ProviderConfig>& providers) {
  return [&providers](const std::string& provider, const std::string& model) -> Status {
    for (const auto& p : providers) {
      if (p.name != provider) continue;
      if (!p.models.empty() && !p.models.count(model)) {
        std::string known;
        for (const auto& [m, price] : p.models) known += (known.empty() ? "" : ", ") + m;
        return InvalidArgument("provider '" + provider + "' has no model '" + model + "' (known: " + known +
                               "; fix: add \"" + model +
                               "\": {\"input_per_mtok\": ..., \"output_per_mtok\": ...} "
                               "to providers." +
                               provider + ".models in the daemon config, or use a known model)");
      }
      return Status::Ok();
    }
    return InvalidArgument("unknown provider '" + provider + "' (fix: name one of the daemon config's providers)");
  };
}

Result<workflows::CampaignSpec> CheckSpec(const DaemonConfig& config, const std::vector<llm::ProviderConfig>& providers,
                                          const json& raw_spec) {
  ACCELOPT_ASSIGN_OR_RETURN(json full, CompleteSpec(config, providers, raw_spec));
  ACCELOPT_ASSIGN_OR_RETURN(workflows::CampaignSpec spec, workflows::ParseCampaignSpec(full));
  ACCELOPT_RETURN_IF_ERROR(workflows::Validate(spec, ModelCheckFor(providers)));
  return spec;
}

Status CheckCampaignDefaults(const DaemonConfig& config) {
  ACCELOPT_ASSIGN_OR_RETURN(const auto providers, llm::ParseProvidersConfig(config.providers));
  // No model at all (no providers, no roles): a daemon for baselines,
  // calibration and the dashboard; every submission says what is missing.
  if (config.roles.empty() && providers.empty()) return Status::Ok();
  if (config.roles.empty()) {
    return InvalidArgument(
        "roles: none configured, so every campaign that names no roles is refused at submit (fix: set "
        "roles.planner, roles.executor and roles.summarizer to {\"provider\": ..., \"model\": ...} in the daemon "
        "config)");
  }
  // A submission that names only its problems gets everything else from the config.
  auto spec = CheckSpec(config, providers, json{{"problems", json::array({"check-config"})}});
  if (spec.ok()) return Status::Ok();
  std::string m = spec.status().message();
  // The spec's "roles.planner: ..." is the config's field of the same name.
  const bool search = m.rfind("search", 0) == 0 || m.find("'search.") != std::string::npos;
  const bool roles = m.rfind("roles", 0) == 0 || m.find("'roles.") != std::string::npos;
  const std::string fix = search ? "fix \"search\" in the config"
                                 : (roles ? "fix \"roles\" or \"providers\" in the config" : "fix the config");
  return Status(
      spec.status().code(),
      m + " (the daemon config's default for every campaign, so every submission would be refused; " + fix + ")");
}

}  // namespace accelopt::daemon
