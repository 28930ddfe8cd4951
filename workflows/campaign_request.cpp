#include "workflows/campaign_request.hpp"

#include "base/strict_json.hpp"

#include <cctype>
#include <cmath>
#include <set>

namespace accelopt::workflows {

Status ValidateBankName(const std::string& bank) {
  if (bank.empty() || bank.size() > 200) {
    return InvalidArgument("memory bank name must be 1..200 characters");
  }
  if (bank[0] == '.' || bank[0] == '-') {
    return InvalidArgument("memory bank name '" + bank + "' must not start with '.' or '-'");
  }
  for (char c : bank) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return InvalidArgument("memory bank name '" + bank + "' may hold only A-Z a-z 0-9 . _ -");
    }
  }
  return Status::Ok();
}

const RoleSpec& CampaignSpec::Role(const std::string& role) const {
  if (role == kRoleExecutor) return executor;
  if (role == kRoleSummarizer) return summarizer;
  return planner;
}

int FixAttempts(const CampaignSpec& spec) {
  // The published loop has no fixer: paper mode never fixes, whatever a
  // spec or the daemon's search defaults say.
  if (spec.mode == kModePaper) return 0;
  if (spec.search.fix_attempts) return *spec.search.fix_attempts;
  return 1;
}

namespace {

// Reads typed fields from one JSON object, rejecting unknown keys.
class Reader {
 public:
  Reader(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

  Status CheckObject(const std::set<std::string>& allowed) const {
    if (!j_.is_object()) return InvalidArgument(where_ + " must be a JSON object");
    for (const auto& [key, value] : j_.items()) {
      if (!allowed.count(key)) return UnknownKey(JsonPlace{"", where_}, key, {allowed.begin(), allowed.end()});
    }
    return Status::Ok();
  }

  std::string Path(const std::string& key) const {
    return where_.empty() ? "'" + key + "'" : "'" + where_ + "." + key + "'";
  }

  template <typename T>
  Status Get(const std::string& key, T* out) const {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return Status::Ok();
    if constexpr (std::is_same_v<T, std::string>) {
      if (!it->is_string()) return InvalidArgument(Path(key) + " must be a string");
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!it->is_boolean()) return InvalidArgument(Path(key) + " must be true or false");
    } else if constexpr (std::is_integral_v<T>) {
      if (!it->is_number_integer()) return InvalidArgument(Path(key) + " must be an integer");
      if (!IntegerFits<T>(*it)) return InvalidArgument(Path(key) + " is out of range");
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!it->is_number()) return InvalidArgument(Path(key) + " must be a number");
    }
    *out = it->get<T>();
    return Status::Ok();
  }

  template <typename T>
  Status GetOptional(const std::string& key, std::optional<T>* out) const {
    if (!j_.contains(key) || j_[key].is_null()) return Status::Ok();
    T v{};
    ACCELOPT_RETURN_IF_ERROR(Get(key, &v));
    *out = v;
    return Status::Ok();
  }

 private:
  const json& j_;
  std::string where_;
};

Status ParseRole(const json& j, const std::string& name, RoleSpec* role) {
  Reader r(j, "roles." + name);
  ACCELOPT_RETURN_IF_ERROR(r.CheckObject({"provider", "model", "temperature", "max_tokens", "reasoning", "pricing"}));
  ACCELOPT_RETURN_IF_ERROR(r.Get("provider", &role->provider));
  ACCELOPT_RETURN_IF_ERROR(r.Get("model", &role->model));
  ACCELOPT_RETURN_IF_ERROR(r.Get("temperature", &role->temperature));
  ACCELOPT_RETURN_IF_ERROR(r.Get("max_tokens", &role->max_tokens));
  if (j.contains("reasoning")) role->reasoning = j["reasoning"];
  if (j.contains("pricing") && !j["pricing"].is_null()) {
    Reader p(j["pricing"], "roles." + name + ".pricing");
    ACCELOPT_RETURN_IF_ERROR(p.CheckObject({"input_usd_per_mtok", "output_usd_per_mtok"}));
    Pricing pricing;
    ACCELOPT_RETURN_IF_ERROR(p.Get("input_usd_per_mtok", &pricing.input_usd_per_mtok));
    ACCELOPT_RETURN_IF_ERROR(p.Get("output_usd_per_mtok", &pricing.output_usd_per_mtok));
    role->pricing = pricing;
  }
  return Status::Ok();
}

json RoleJson(const RoleSpec& r) {
  json j = {{"provider", r.provider},
            {"model", r.model},
            {"temperature", r.temperature},
            {"max_tokens", r.max_tokens},
            {"reasoning", r.reasoning}};
  if (r.pricing) {
    j["pricing"] = {{"input_usd_per_mtok", r.pricing->input_usd_per_mtok},
                    {"output_usd_per_mtok", r.pricing->output_usd_per_mtok}};
  }
  return j;
}

}  // namespace

Result<RoleSpec> ParseRoleSpec(const json& j, const std::string& name) {
  RoleSpec role;
  ACCELOPT_RETURN_IF_ERROR(ParseRole(j, name, &role));
  if (role.provider.empty() || role.model.empty()) {
    return InvalidArgument("roles." + name + " needs a provider and a model");
  }
  if (role.max_tokens < 1) return InvalidArgument("roles." + name + ".max_tokens must be >= 1");
  if (!(role.temperature >= 0)) return InvalidArgument("roles." + name + ".temperature must be >= 0");
  return role;
}

json ToJson(const RoleSpec& role) { return RoleJson(role); }

namespace {

Status ValidateRole(const std::string& name, const RoleSpec& r, bool need_pricing, const ModelCheck& check_model) {
  const std::string at = "roles." + name;
  if (r.provider.empty()) return InvalidArgument(at + ".provider is missing");
  if (r.model.empty()) return InvalidArgument(at + ".model is missing");
  if (r.max_tokens < 1) {
    return InvalidArgument(at + ".max_tokens must be >= 1, got " + std::to_string(r.max_tokens));
  }
  if (!(r.temperature >= 0) || !std::isfinite(r.temperature)) {
    return InvalidArgument(at + ".temperature must be >= 0");
  }
  if (r.pricing) {
    if (!(r.pricing->input_usd_per_mtok >= 0) || !(r.pricing->output_usd_per_mtok >= 0)) {
      return InvalidArgument(at + ".pricing must not be negative");
    }
  } else if (need_pricing) {
    return InvalidArgument(at + " has no pricing for " + r.provider + "/" + r.model +
                           ", so budget.max_cost_usd cannot be enforced");
  }
  if (check_model) {
    Status st = check_model(r.provider, r.model);
    if (!st.ok()) return st.WithContext(at);
  }
  return Status::Ok();
}

}  // namespace

Result<CampaignSpec> ParseCampaignSpec(const json& j) {
  CampaignSpec spec;
  Reader top(j, "");
  ACCELOPT_RETURN_IF_ERROR(top.CheckObject({"mode", "suite", "problems", "search", "roles", "seed", "budget",
                                            "evaluation", "memory", "replay", "experiment"}));
  ACCELOPT_RETURN_IF_ERROR(top.Get("mode", &spec.mode));
  std::string suite;
  ACCELOPT_RETURN_IF_ERROR(top.Get("suite", &suite));
  if (j.contains("problems")) {
    if (!j["problems"].is_array()) return InvalidArgument("'problems' must be an array of names");
    for (const auto& p : j["problems"]) {
      if (!p.is_string()) return InvalidArgument("'problems' must be an array of names");
      std::string name = p.get<std::string>();
      if (!suite.empty() && name.find('/') == std::string::npos) name = suite + "/" + name;
      spec.problems.push_back(name);
    }
  }
  if (j.contains("search")) {
    Reader s(j["search"], "search");
    ACCELOPT_RETURN_IF_ERROR(s.CheckObject(
        {"T", "B", "N", "K", "TopK", "ExpN", "positive_threshold", "negative_threshold", "fix_attempts"}));
    SearchParams& p = spec.search;
    ACCELOPT_RETURN_IF_ERROR(s.Get("T", &p.T));
    ACCELOPT_RETURN_IF_ERROR(s.Get("B", &p.B));
    ACCELOPT_RETURN_IF_ERROR(s.Get("N", &p.N));
    ACCELOPT_RETURN_IF_ERROR(s.Get("K", &p.K));
    ACCELOPT_RETURN_IF_ERROR(s.Get("TopK", &p.TopK));
    ACCELOPT_RETURN_IF_ERROR(s.Get("ExpN", &p.ExpN));
    ACCELOPT_RETURN_IF_ERROR(s.Get("positive_threshold", &p.positive_threshold));
    ACCELOPT_RETURN_IF_ERROR(s.Get("negative_threshold", &p.negative_threshold));
    ACCELOPT_RETURN_IF_ERROR(s.GetOptional("fix_attempts", &p.fix_attempts));
  }
  if (!j.contains("roles") || !j["roles"].is_object()) {
    return InvalidArgument("'roles' is missing: planner, executor and summarizer need a model");
  }
  const json& roles = j["roles"];
  for (const auto& [name, value] : roles.items()) {
    if (name != kRolePlanner && name != kRoleExecutor && name != kRoleSummarizer) {
      return InvalidArgument("unknown role '" + name + "' (roles are planner, executor, summarizer)");
    }
  }
  for (const char* name : {kRolePlanner, kRoleExecutor, kRoleSummarizer}) {
    if (!roles.contains(name)) return InvalidArgument(std::string("role '") + name + "' is missing");
  }
  ACCELOPT_RETURN_IF_ERROR(ParseRole(roles[kRolePlanner], kRolePlanner, &spec.planner));
  ACCELOPT_RETURN_IF_ERROR(ParseRole(roles[kRoleExecutor], kRoleExecutor, &spec.executor));
  ACCELOPT_RETURN_IF_ERROR(ParseRole(roles[kRoleSummarizer], kRoleSummarizer, &spec.summarizer));
  if (j.contains("seed")) {
    const json& seed = j["seed"];
    if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0)) {
      return InvalidArgument("'seed' must be a non-negative integer");
    }
    spec.seed = j["seed"].get<uint64_t>();
  }
  if (j.contains("budget")) {
    Reader b(j["budget"], "budget");
    ACCELOPT_RETURN_IF_ERROR(b.CheckObject(
        {"max_cost_usd", "max_tokens", "max_llm_calls", "max_evaluations", "max_wall_s", "max_provider_wait_s"}));
    ACCELOPT_RETURN_IF_ERROR(b.GetOptional("max_cost_usd", &spec.budget.max_cost_usd));
    ACCELOPT_RETURN_IF_ERROR(b.GetOptional("max_tokens", &spec.budget.max_tokens));
    ACCELOPT_RETURN_IF_ERROR(b.GetOptional("max_llm_calls", &spec.budget.max_llm_calls));
    ACCELOPT_RETURN_IF_ERROR(b.GetOptional("max_evaluations", &spec.budget.max_evaluations));
    ACCELOPT_RETURN_IF_ERROR(b.GetOptional("max_wall_s", &spec.budget.max_wall_s));
    ACCELOPT_RETURN_IF_ERROR(b.GetOptional("max_provider_wait_s", &spec.budget.max_provider_wait_s));
  }
  if (j.contains("memory") && !j["memory"].is_null()) {
    Reader m(j["memory"], "memory");
    ACCELOPT_RETURN_IF_ERROR(m.CheckObject({"scope", "bank", "frozen"}));
    ACCELOPT_RETURN_IF_ERROR(m.Get("scope", &spec.memory.scope));
    ACCELOPT_RETURN_IF_ERROR(m.Get("bank", &spec.memory.bank));
    ACCELOPT_RETURN_IF_ERROR(m.Get("frozen", &spec.memory.frozen));
  }
  if (j.contains("evaluation")) {
    if (!j["evaluation"].is_object()) return InvalidArgument("'evaluation' must be an object");
    spec.evaluation = j["evaluation"];
  }
  if (j.contains("replay") && !j["replay"].is_null()) {
    Reader r(j["replay"], "replay");
    ACCELOPT_RETURN_IF_ERROR(r.CheckObject({"from", "on_miss"}));
    ReplaySpec replay;
    ACCELOPT_RETURN_IF_ERROR(r.Get("from", &replay.from));
    ACCELOPT_RETURN_IF_ERROR(r.Get("on_miss", &replay.on_miss));
    spec.replay = replay;
  }
  if (j.contains("experiment") && !j["experiment"].is_null()) {
    Reader r(j["experiment"], "experiment");
    ACCELOPT_RETURN_IF_ERROR(r.CheckObject({"id", "arm"}));
    ExperimentTag tag;
    ACCELOPT_RETURN_IF_ERROR(r.Get("id", &tag.id));
    ACCELOPT_RETURN_IF_ERROR(r.Get("arm", &tag.arm));
    spec.experiment = tag;
  }
  return spec;
}

json ToJson(const CampaignSpec& spec) {
  const SearchParams& p = spec.search;
  json budget = json::object();
  if (spec.budget.max_cost_usd) budget["max_cost_usd"] = *spec.budget.max_cost_usd;
  if (spec.budget.max_tokens) budget["max_tokens"] = *spec.budget.max_tokens;
  if (spec.budget.max_llm_calls) budget["max_llm_calls"] = *spec.budget.max_llm_calls;
  if (spec.budget.max_evaluations) budget["max_evaluations"] = *spec.budget.max_evaluations;
  if (spec.budget.max_wall_s) budget["max_wall_s"] = *spec.budget.max_wall_s;
  if (spec.budget.max_provider_wait_s) budget["max_provider_wait_s"] = *spec.budget.max_provider_wait_s;
  json out = {{"mode", spec.mode},
              {"problems", spec.problems},
              {"search",
               {{"T", p.T},
                {"B", p.B},
                {"N", p.N},
                {"K", p.K},
                {"TopK", p.TopK},
                {"ExpN", p.ExpN},
                {"positive_threshold", p.positive_threshold},
                {"negative_threshold", p.negative_threshold},
                {"fix_attempts", FixAttempts(spec)}}},
              {"roles",
               {{kRolePlanner, RoleJson(spec.planner)},
                {kRoleExecutor, RoleJson(spec.executor)},
                {kRoleSummarizer, RoleJson(spec.summarizer)}}},
              {"seed", spec.seed},
              {"budget", budget},
              {"evaluation", spec.evaluation},
              {"memory", spec.memory.bank.empty() ? json{{"scope", spec.memory.scope}}
                                                  : json{{"scope", spec.memory.scope}, {"bank", spec.memory.bank}}}};
  if (spec.memory.frozen) out["memory"]["frozen"] = true;
  if (spec.replay) out["replay"] = {{"from", spec.replay->from}, {"on_miss", spec.replay->on_miss}};
  if (spec.experiment) out["experiment"] = {{"id", spec.experiment->id}, {"arm", spec.experiment->arm}};
  return out;
}

Status Validate(const CampaignSpec& spec, const ModelCheck& check_model) {
  if (spec.mode != kModePaper && spec.mode != kModeDefault && spec.mode != kModeSampling) {
    return InvalidArgument("unknown search mode '" + spec.mode + "' (known: default, paper, sampling)");
  }
  if (spec.mode == kModeSampling && spec.memory.scope != "problem" && spec.memory.scope != "none") {
    return InvalidArgument("memory.scope '" + spec.memory.scope +
                           "' needs a memory; mode \"sampling\" has none: leave memory out");
  }
  if (spec.problems.empty()) return InvalidArgument("'problems' is empty: name at least one");
  std::set<std::string> seen;
  for (const auto& p : spec.problems) {
    if (p.empty()) return InvalidArgument("'problems' holds an empty name");
    if (!seen.insert(p).second) return InvalidArgument("problem '" + p + "' is listed twice");
  }
  const SearchParams& s = spec.search;
  const std::pair<const char*, int> ints[] = {{"T", s.T}, {"B", s.B},       {"N", s.N},
                                              {"K", s.K}, {"TopK", s.TopK}, {"ExpN", s.ExpN}};
  for (const auto& [name, v] : ints) {
    if (v < 1) {
      return InvalidArgument(std::string("search.") + name + " must be >= 1, got " + std::to_string(v));
    }
  }
  if (s.fix_attempts && *s.fix_attempts < 0) {
    return InvalidArgument("search.fix_attempts must be >= 0, got " + std::to_string(*s.fix_attempts));
  }
  if (s.TopK > s.ExpN) {
    return InvalidArgument("search.TopK (" + std::to_string(s.TopK) + ") must not exceed search.ExpN (" +
                           std::to_string(s.ExpN) + ")");
  }
  if (!(s.positive_threshold >= 1.0) || !std::isfinite(s.positive_threshold)) {
    return InvalidArgument("search.positive_threshold must be a speedup >= 1");
  }
  if (!(s.negative_threshold >= 1.0) || !std::isfinite(s.negative_threshold)) {
    return InvalidArgument("search.negative_threshold must be a slowdown factor >= 1");
  }
  const BudgetSpec& b = spec.budget;
  if (b.max_cost_usd && !(*b.max_cost_usd > 0)) {
    return InvalidArgument("budget.max_cost_usd must be > 0 (omit it for no cap)");
  }
  if (b.max_tokens && *b.max_tokens <= 0) {
    return InvalidArgument("budget.max_tokens must be > 0 (omit it for no cap)");
  }
  if (b.max_llm_calls && *b.max_llm_calls <= 0) {
    return InvalidArgument("budget.max_llm_calls must be > 0 (omit it for no cap)");
  }
  if (b.max_evaluations && *b.max_evaluations <= 0) {
    return InvalidArgument("budget.max_evaluations must be > 0 (omit it for no cap)");
  }
  if (b.max_wall_s && !(*b.max_wall_s > 0)) {
    return InvalidArgument("budget.max_wall_s must be > 0 (omit it for no cap)");
  }
  if (b.max_provider_wait_s && !(*b.max_provider_wait_s >= 0)) {
    return InvalidArgument("budget.max_provider_wait_s must be >= 0 (omit it to wait until max_wall_s)");
  }
  const bool need_pricing = b.max_cost_usd.has_value();
  ACCELOPT_RETURN_IF_ERROR(ValidateRole(kRolePlanner, spec.planner, need_pricing, check_model));
  ACCELOPT_RETURN_IF_ERROR(ValidateRole(kRoleExecutor, spec.executor, need_pricing, check_model));
  ACCELOPT_RETURN_IF_ERROR(ValidateRole(kRoleSummarizer, spec.summarizer, need_pricing, check_model));
  if (!spec.evaluation.is_object()) return InvalidArgument("'evaluation' must be an object");
  const MemorySpec& m = spec.memory;
  if (m.scope != "problem" && m.scope != "campaign" && m.scope != "bank" && m.scope != "none") {
    return InvalidArgument("memory.scope must be problem, campaign, bank or none, not '" + m.scope + "'");
  }
  if (m.scope == "bank") {
    if (m.bank.empty()) return InvalidArgument("memory.bank is required with memory.scope \"bank\"");
    Status st = ValidateBankName(m.bank);
    if (!st.ok()) return InvalidArgument("memory.bank: " + st.message());
  } else if (!m.bank.empty()) {
    return InvalidArgument("memory.bank is only for memory.scope \"bank\" (scope is '" + m.scope + "')");
  }
  if (m.frozen && m.scope != "bank") {
    return InvalidArgument("memory.frozen is only for memory.scope \"bank\" (a read-only named bank; scope is '" +
                           m.scope + "')");
  }
  if (spec.experiment && (spec.experiment->id.empty() || spec.experiment->arm.empty())) {
    return InvalidArgument("experiment.id and experiment.arm are required in an experiment's campaign");
  }
  if (spec.replay) {
    if (spec.replay->from.empty()) return InvalidArgument("replay.from is required: the recorded campaign's id");
    if (spec.replay->on_miss != "stop" && spec.replay->on_miss != "live") {
      return InvalidArgument("replay.on_miss must be \"stop\" or \"live\", not '" + spec.replay->on_miss + "'");
    }
  }
  return Status::Ok();
}

}  // namespace accelopt::workflows
