#include "tests/fakes/llm_server/script.hpp"
#include "base/text.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace accelopt::fakes {
namespace {

Status CheckKeys(const json& j, const std::string& path, std::initializer_list<const char*> allowed) {
  if (!j.is_object()) return InvalidArgument(path + ": expected an object");
  std::set<std::string> ok(allowed.begin(), allowed.end());
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!ok.count(it.key())) return InvalidArgument(path + ": unknown key '" + it.key() + "'");
  }
  return Status::Ok();
}

template <typename T>
Status Read(const json& j, const char* key, T* out, const std::string& path) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Ok();
  try {
    *out = it->get<T>();
  } catch (const json::exception&) {
    return InvalidArgument(path + "." + key + ": wrong type");
  }
  return Status::Ok();
}

template <typename T>
Status ReadOpt(const json& j, const char* key, std::optional<T>* out, const std::string& path) {
  if (!j.contains(key)) return Status::Ok();
  T v{};
  ACCELOPT_RETURN_IF_ERROR(Read(j, key, &v, path));
  *out = v;
  return Status::Ok();
}

Status ParseRegex(const json& j, const char* key, std::optional<std::regex>* out, const std::string& path) {
  std::string s;
  ACCELOPT_RETURN_IF_ERROR(Read(j, key, &s, path));
  if (!j.contains(key)) return Status::Ok();
  try {
    *out = std::regex(s, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return InvalidArgument(path + "." + key + ": bad regex: " + e.what());
  }
  return Status::Ok();
}

Status ParseFault(const json& j, const std::string& path, FakeFault* f) {
  if (j.is_string()) {
    f->kind = j.get<std::string>();
  } else {
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(
        j, path, {"kind", "status", "message", "retry_after_s", "retry_after_ms", "stall_ms", "bytes", "body"}));
    if (j.contains("body")) f->body = j["body"];
    ACCELOPT_RETURN_IF_ERROR(Read(j, "kind", &f->kind, path));
    ACCELOPT_RETURN_IF_ERROR(Read(j, "status", &f->status, path));
    ACCELOPT_RETURN_IF_ERROR(Read(j, "message", &f->message, path));
    ACCELOPT_RETURN_IF_ERROR(ReadOpt(j, "retry_after_s", &f->retry_after_s, path));
    ACCELOPT_RETURN_IF_ERROR(ReadOpt(j, "retry_after_ms", &f->retry_after_ms, path));
    ACCELOPT_RETURN_IF_ERROR(ReadOpt(j, "stall_ms", &f->stall_ms, path));
    ACCELOPT_RETURN_IF_ERROR(Read(j, "bytes", &f->bytes, path));
  }
  static const std::set<std::string> kKinds = {
      "429", "500", "503", "status", "reset", "stall", "invalid_json", "missing_fields", "empty", "length", "huge"};
  if (!kKinds.count(f->kind)) return InvalidArgument(path + ": unknown fault kind '" + f->kind + "'");
  if (f->kind == "429") f->status = 429;
  if (f->kind == "500") f->status = 500;
  if (f->kind == "503") f->status = 503;
  if (f->kind == "status" && (f->status < 100 || f->status > 599)) {
    return InvalidArgument(path + ".status: required, 100..599");
  }
  return Status::Ok();
}

}  // namespace

Result<FakeScript> FakeScript::Parse(const json& j) {
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(j, "script", {"rules", "role_markers"}));
  FakeScript s;
  ACCELOPT_RETURN_IF_ERROR(Read(j, "role_markers", &s.role_markers_, "script"));
  const json rules = j.value("rules", json::array());
  if (!rules.is_array()) return InvalidArgument("script.rules: expected an array");
  for (size_t i = 0; i < rules.size(); ++i) {
    const json& r = rules[i];
    const std::string path = "script.rules[" + std::to_string(i) + "]";
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(r, path, {"name", "match", "reply", "fault", "latency_ms"}));
    FakeRule rule;
    rule.name = "rule" + std::to_string(i);
    ACCELOPT_RETURN_IF_ERROR(Read(r, "name", &rule.name, path));
    ACCELOPT_RETURN_IF_ERROR(Read(r, "latency_ms", &rule.latency_ms, path));
    if (r.contains("match")) {
      const json& m = r["match"];
      const std::string mp = path + ".match";
      ACCELOPT_RETURN_IF_ERROR(CheckKeys(
          m, mp,
          {"role", "system_contains", "user_contains", "system_regex", "user_regex", "model", "api", "nth", "times"}));
      ACCELOPT_RETURN_IF_ERROR(Read(m, "role", &rule.role, mp));
      ACCELOPT_RETURN_IF_ERROR(Read(m, "system_contains", &rule.system_contains, mp));
      ACCELOPT_RETURN_IF_ERROR(Read(m, "user_contains", &rule.user_contains, mp));
      ACCELOPT_RETURN_IF_ERROR(Read(m, "model", &rule.model, mp));
      ACCELOPT_RETURN_IF_ERROR(Read(m, "api", &rule.api, mp));
      ACCELOPT_RETURN_IF_ERROR(ParseRegex(m, "system_regex", &rule.system_regex, mp));
      ACCELOPT_RETURN_IF_ERROR(ParseRegex(m, "user_regex", &rule.user_regex, mp));
      ACCELOPT_RETURN_IF_ERROR(ReadOpt(m, "nth", &rule.nth, mp));
      ACCELOPT_RETURN_IF_ERROR(ReadOpt(m, "times", &rule.times, mp));
    }
    if (r.contains("reply")) {
      const json& rp = r["reply"];
      const std::string pp = path + ".reply";
      ACCELOPT_RETURN_IF_ERROR(CheckKeys(
          rp, pp,
          {"text", "reasoning", "finish_reason", "input_tokens", "output_tokens", "cached_tokens", "no_usage"}));
      ACCELOPT_RETURN_IF_ERROR(Read(rp, "no_usage", &rule.reply.no_usage, pp));
      ACCELOPT_RETURN_IF_ERROR(Read(rp, "text", &rule.reply.text, pp));
      ACCELOPT_RETURN_IF_ERROR(Read(rp, "reasoning", &rule.reply.reasoning, pp));
      ACCELOPT_RETURN_IF_ERROR(Read(rp, "finish_reason", &rule.reply.finish_reason, pp));
      ACCELOPT_RETURN_IF_ERROR(ReadOpt(rp, "input_tokens", &rule.reply.input_tokens, pp));
      ACCELOPT_RETURN_IF_ERROR(ReadOpt(rp, "output_tokens", &rule.reply.output_tokens, pp));
      ACCELOPT_RETURN_IF_ERROR(Read(rp, "cached_tokens", &rule.reply.cached_tokens, pp));
    }
    if (r.contains("fault")) ACCELOPT_RETURN_IF_ERROR(ParseFault(r["fault"], path + ".fault", &rule.fault));
    if (!r.contains("reply") && !r.contains("fault")) {
      return InvalidArgument(path + ": needs a reply or a fault");
    }
    s.rules_.push_back(std::move(rule));
  }
  s.seen_.assign(s.rules_.size(), 0);
  s.served_.assign(s.rules_.size(), 0);
  return s;
}

bool FakeScript::Applies(const FakeRule& r, const FakeCall& c) const {
  if (!r.role.empty()) {
    auto it = role_markers_.find(r.role);
    std::string marker = it != role_markers_.end() ? it->second : r.role;
    if (Lower(c.system).find(Lower(marker)) == std::string::npos) return false;
  }
  if (!r.system_contains.empty() && c.system.find(r.system_contains) == std::string::npos) return false;
  if (!r.user_contains.empty() && c.user.find(r.user_contains) == std::string::npos) return false;
  if (r.system_regex && !std::regex_search(c.system, *r.system_regex)) return false;
  if (r.user_regex && !std::regex_search(c.user, *r.user_regex)) return false;
  if (!r.model.empty() && r.model != c.model) return false;
  if (!r.api.empty() && r.api != c.api) return false;
  return true;
}

int FakeScript::Match(const FakeCall& call) {
  // Every rule whose conditions the call meets counts it, whichever rule
  // serves it: "nth" is the nth request meeting the conditions (counted only
  // up to the first match, the 2nd of several nth rules over the same
  // requests never matched: half the hostile kernels' executor calls got 404).
  std::vector<int> nth(rules_.size(), 0);
  for (size_t i = 0; i < rules_.size(); ++i) {
    if (Applies(rules_[i], call)) nth[i] = ++seen_[i];
  }
  for (size_t i = 0; i < rules_.size(); ++i) {
    const FakeRule& r = rules_[i];
    if (!nth[i]) continue;
    if (r.nth && nth[i] != *r.nth) continue;
    if (r.times && served_[i] >= *r.times) continue;
    ++served_[i];
    return static_cast<int>(i);
  }
  return -1;
}

}  // namespace accelopt::fakes
