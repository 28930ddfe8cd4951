#include "llm/config.hpp"

#include "base/strict_json.hpp"

#include <cmath>
#include <set>
#include <type_traits>
#include <utility>

namespace accelopt::llm {

const char* ProviderKindName(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::kOpenAi:
      return "openai";
    case ProviderKind::kAnthropic:
      return "anthropic";
    case ProviderKind::kBedrock:
      return "bedrock";
    case ProviderKind::kCommand:
      return "command";
    case ProviderKind::kReplay:
      return "replay";
  }
  return "unknown";
}

namespace {

// Reads fields of one JSON object, remembering which keys were consumed so
// that leftovers can be reported as unknown.
class Fields {
 public:
  Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  Status CheckObject() const {
    if (!j_.is_object()) return InvalidArgument(path_ + ": expected an object");
    return Status::Ok();
  }

  template <typename T>
  Status Read(const char* key, T* out) {
    seen_.insert(key);
    auto it = j_.find(key);
    if (it == j_.end()) return Status::Ok();
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // nlohmann converts with a plain cast: a float outside T's range is
      // undefined behaviour, a large integer silently wraps.
      return ReadInteger(key, *it, out);
    }
    try {
      *out = it->get<T>();
    } catch (const json::exception&) {
      return InvalidArgument(path_ + "." + key + ": wrong type (got " + it->type_name() + ")");
    }
    return Status::Ok();
  }

  template <typename T>
  Status ReadInteger(const char* key, const json& v, T* out) const {
    const std::string field = path_ + "." + key;
    if (v.is_number_unsigned()) {
      if (!std::in_range<T>(v.get<uint64_t>())) return InvalidArgument(field + ": out of range");
      *out = static_cast<T>(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      if (!std::in_range<T>(v.get<int64_t>())) return InvalidArgument(field + ": out of range");
      *out = static_cast<T>(v.get<int64_t>());
    } else if (v.is_number_float()) {
      const double d = v.get<double>();
      // 2^63 is exact in a double; anything in (-2^63, 2^63) converts to int64.
      if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0) || std::trunc(d) != d ||
          !std::in_range<T>(static_cast<int64_t>(d))) {
        return InvalidArgument(field + ": must be an integer in range");
      }
      *out = static_cast<T>(static_cast<int64_t>(d));
    } else {
      return InvalidArgument(field + ": wrong type (got " + v.type_name() + ")");
    }
    return Status::Ok();
  }

  Status ReadMillis(const char* key, Millis* out, int64_t min_ms) {
    int64_t v = out->count();
    ACCELOPT_RETURN_IF_ERROR(Read(key, &v));
    if (v < min_ms) {
      return InvalidArgument(path_ + "." + key + ": must be >= " + std::to_string(min_ms));
    }
    *out = Millis(v);
    return Status::Ok();
  }

  const json* Sub(const char* key) {
    seen_.insert(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }

  bool Has(const char* key) const { return j_.contains(key); }

  Status RejectUnknown() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (!seen_.count(it.key()))
        return UnknownKey(JsonPlace{"", path_}, it.key(), std::vector<std::string>(seen_.begin(), seen_.end()));
    }
    return Status::Ok();
  }

  const std::string& path() const { return path_; }

 private:
  const json& j_;
  std::string path_;
  std::set<std::string> seen_;
};

Status ParseKind(const std::string& s, const std::string& path, ProviderKind* kind) {
  static const std::pair<const char*, ProviderKind> kKinds[] = {{"openai", ProviderKind::kOpenAi},
                                                                {"anthropic", ProviderKind::kAnthropic},
                                                                {"bedrock", ProviderKind::kBedrock},
                                                                {"command", ProviderKind::kCommand},
                                                                {"replay", ProviderKind::kReplay}};
  for (const auto& [n, k] : kKinds) {
    if (s == n) {
      *kind = k;
      return Status::Ok();
    }
  }
  return InvalidArgument(path + ".kind: unknown provider kind '" + s +
                         "' (expected openai, anthropic, bedrock, command or replay)");
}

Status ParseModels(const json& j, const std::string& path, std::map<std::string, ModelPrice>* out) {
  if (!j.is_object()) return InvalidArgument(path + ": expected an object of model prices");
  for (auto it = j.begin(); it != j.end(); ++it) {
    Fields f(it.value(), path + "." + it.key());
    ACCELOPT_RETURN_IF_ERROR(f.CheckObject());
    ModelPrice p;
    ACCELOPT_RETURN_IF_ERROR(f.Read("input_per_mtok", &p.input_per_mtok));
    ACCELOPT_RETURN_IF_ERROR(f.Read("output_per_mtok", &p.output_per_mtok));
    p.cached_input_per_mtok = p.input_per_mtok;
    ACCELOPT_RETURN_IF_ERROR(f.Read("cached_input_per_mtok", &p.cached_input_per_mtok));
    ACCELOPT_RETURN_IF_ERROR(f.RejectUnknown());
    if (p.input_per_mtok < 0 || p.output_per_mtok < 0 || p.cached_input_per_mtok < 0) {
      return InvalidArgument(f.path() + ": prices must be >= 0");
    }
    (*out)[it.key()] = p;
  }
  return Status::Ok();
}

}  // namespace

Result<ProviderConfig> ParseProviderConfig(const std::string& name, const json& j, const std::string& path) {
  Fields f(j, path);
  ACCELOPT_RETURN_IF_ERROR(f.CheckObject());
  ProviderConfig c;
  c.name = name;
  std::string kind;
  ACCELOPT_RETURN_IF_ERROR(f.Read("kind", &kind));
  if (kind.empty()) return InvalidArgument(path + ".kind: required");
  ACCELOPT_RETURN_IF_ERROR(ParseKind(kind, path, &c.kind));
  const bool http =
      c.kind == ProviderKind::kOpenAi || c.kind == ProviderKind::kAnthropic || c.kind == ProviderKind::kBedrock;
  if (!http) c.retry.max_attempts = 1;

  ACCELOPT_RETURN_IF_ERROR(f.Read("max_concurrency", &c.max_concurrency));
  if (c.max_concurrency < 1) return InvalidArgument(path + ".max_concurrency: must be >= 1");
  int64_t max_bytes = static_cast<int64_t>(c.max_response_bytes);
  ACCELOPT_RETURN_IF_ERROR(f.Read("max_response_bytes", &max_bytes));
  if (max_bytes < 1024) return InvalidArgument(path + ".max_response_bytes: must be >= 1024");
  c.max_response_bytes = static_cast<size_t>(max_bytes);

  if (const json* t = f.Sub("timeouts")) {
    Fields tf(*t, path + ".timeouts");
    ACCELOPT_RETURN_IF_ERROR(tf.CheckObject());
    ACCELOPT_RETURN_IF_ERROR(tf.ReadMillis("connect_ms", &c.timeouts.connect, 1));
    ACCELOPT_RETURN_IF_ERROR(tf.ReadMillis("total_ms", &c.timeouts.total, 1));
    ACCELOPT_RETURN_IF_ERROR(tf.ReadMillis("stall_ms", &c.timeouts.stall, 1));
    ACCELOPT_RETURN_IF_ERROR(tf.RejectUnknown());
  }
  if (const json* r = f.Sub("retry")) {
    Fields rf(*r, path + ".retry");
    ACCELOPT_RETURN_IF_ERROR(rf.CheckObject());
    ACCELOPT_RETURN_IF_ERROR(rf.Read("max_attempts", &c.retry.max_attempts));
    if (c.retry.max_attempts < 1 || c.retry.max_attempts > 100) {
      return InvalidArgument(path + ".retry.max_attempts: must be in 1..100");
    }
    ACCELOPT_RETURN_IF_ERROR(rf.ReadMillis("base_ms", &c.retry.base, 0));
    ACCELOPT_RETURN_IF_ERROR(rf.ReadMillis("cap_ms", &c.retry.cap, 0));
    ACCELOPT_RETURN_IF_ERROR(rf.ReadMillis("max_retry_after_ms", &c.retry.max_retry_after, 0));
    ACCELOPT_RETURN_IF_ERROR(rf.RejectUnknown());
  }
  if (const json* m = f.Sub("models")) {
    ACCELOPT_RETURN_IF_ERROR(ParseModels(*m, path + ".models", &c.models));
  }

  if (http) {
    ACCELOPT_RETURN_IF_ERROR(f.Read("base_url", &c.base_url));
    ACCELOPT_RETURN_IF_ERROR(f.Read("api_key_env", &c.api_key_env));
    ACCELOPT_RETURN_IF_ERROR(f.Read("api_key_file", &c.api_key_file));
    ACCELOPT_RETURN_IF_ERROR(f.Read("headers", &c.headers));
    while (!c.base_url.empty() && c.base_url.back() == '/') c.base_url.pop_back();
    for (const auto& [k, v] : c.headers) {
      if (k.empty() || k.find_first_of(":\r\n") != std::string::npos || v.find_first_of("\r\n") != std::string::npos) {
        return InvalidArgument(path + ".headers: invalid header '" + k + "'");
      }
    }
  }
  switch (c.kind) {
    case ProviderKind::kOpenAi:
      ACCELOPT_RETURN_IF_ERROR(f.Read("max_tokens_field", &c.max_tokens_field));
      if (c.max_tokens_field != "max_tokens" && c.max_tokens_field != "max_completion_tokens") {
        return InvalidArgument(path + ".max_tokens_field: expected max_tokens or max_completion_tokens");
      }
      if (const json* e = f.Sub("extra_body")) {
        if (!e->is_object()) return InvalidArgument(path + ".extra_body: expected an object");
        c.extra_body = *e;
      }
      if (c.base_url.empty()) return InvalidArgument(path + ".base_url: required for openai");
      break;
    case ProviderKind::kAnthropic:
      ACCELOPT_RETURN_IF_ERROR(f.Read("anthropic_version", &c.anthropic_version));
      if (c.base_url.empty()) c.base_url = "https://api.anthropic.com";
      if (c.api_key_env.empty() && c.api_key_file.empty()) c.api_key_env = "ANTHROPIC_API_KEY";
      break;
    case ProviderKind::kBedrock:
      ACCELOPT_RETURN_IF_ERROR(f.Read("region", &c.region));
      ACCELOPT_RETURN_IF_ERROR(f.Read("profile", &c.profile));
      ACCELOPT_RETURN_IF_ERROR(f.Read("credentials_file", &c.credentials_file));
      if (!c.api_key_env.empty() || !c.api_key_file.empty()) {
        return InvalidArgument(path + ": bedrock takes AWS credentials, not api_key_env/api_key_file");
      }
      break;
    case ProviderKind::kCommand:
      ACCELOPT_RETURN_IF_ERROR(f.Read("argv", &c.argv));
      ACCELOPT_RETURN_IF_ERROR(f.Read("output", &c.output));
      ACCELOPT_RETURN_IF_ERROR(f.Read("env", &c.env));
      if (c.argv.empty() || c.argv[0].empty()) return InvalidArgument(path + ".argv: required");
      if (c.output != "text" && c.output != "json") {
        return InvalidArgument(path + ".output: expected \"text\" or \"json\"");
      }
      break;
    case ProviderKind::kReplay:
      break;
  }
  ACCELOPT_RETURN_IF_ERROR(f.RejectUnknown());
  return c;
}

Result<std::vector<ProviderConfig>> ParseProvidersConfig(const json& section) {
  const json* providers = &section;
  std::string path = "providers";
  if (section.is_object() && section.contains("providers")) {
    if (section.size() != 1) {
      for (auto it = section.begin(); it != section.end(); ++it) {
        if (it.key() != "providers") return UnknownKey(JsonPlace{}, it.key(), {"providers"});
      }
    }
    providers = &section["providers"];
  }
  if (!providers->is_object()) return InvalidArgument(path + ": expected an object");
  std::vector<ProviderConfig> out;
  for (auto it = providers->begin(); it != providers->end(); ++it) {
    if (it.key().empty()) return InvalidArgument(path + ": empty provider name");
    ACCELOPT_ASSIGN_OR_RETURN(auto c, ParseProviderConfig(it.key(), it.value(), path + "." + it.key()));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace accelopt::llm
