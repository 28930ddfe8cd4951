#include "llm/secrets.hpp"
#include "base/text.hpp"

#include <algorithm>
#include <regex>

#include "base/log.hpp"

namespace accelopt::llm {
namespace {

std::string EnvVar(Env* env, const std::string& name) { return env->GetEnvVar(name).value_or(""); }

}  // namespace

Result<std::string> LoadApiKey(Env* env, const ProviderConfig& config) {
  const std::string where = "provider '" + config.name + "'";
  if (!config.api_key_env.empty()) {
    std::string v = Trim(EnvVar(env, config.api_key_env));
    if (!v.empty()) {
      RegisterSecret(v);
      return v;
    }
    if (config.api_key_file.empty()) {
      return FailedPrecondition(where + ": environment variable " + config.api_key_env + " is not set or empty");
    }
  }
  if (!config.api_key_file.empty()) {
    std::string path = config.api_key_file;
    std::string dir = EnvVar(env, "CREDENTIALS_DIRECTORY");
    if (path[0] != '/' && !dir.empty()) path = dir + "/" + path;
    auto data = env->ReadFile(path);
    if (!data.ok()) return FailedPrecondition(where + ": cannot read api_key_file " + path);
    std::string v = Trim(*data);
    if (v.empty()) return FailedPrecondition(where + ": api_key_file " + path + " is empty");
    RegisterSecret(v);
    return v;
  }
  return std::string();
}

Result<AwsCredentials> LoadAwsCredentials(Env* env, const ProviderConfig& config) {
  const std::string where = "provider '" + config.name + "'";
  AwsCredentials c;
  c.access_key_id = Trim(EnvVar(env, "AWS_ACCESS_KEY_ID"));
  c.secret_access_key = Trim(EnvVar(env, "AWS_SECRET_ACCESS_KEY"));
  c.session_token = Trim(EnvVar(env, "AWS_SESSION_TOKEN"));
  if (c.access_key_id.empty() || c.secret_access_key.empty()) {
    c = AwsCredentials{};
    std::string file = config.credentials_file;
    if (file.empty()) file = EnvVar(env, "AWS_SHARED_CREDENTIALS_FILE");
    if (file.empty()) {
      std::string home = EnvVar(env, "HOME");
      if (home.empty()) return FailedPrecondition(where + ": no AWS credentials (no env, no HOME)");
      file = home + "/.aws/credentials";
    }
    std::string profile = config.profile;
    if (profile.empty()) profile = EnvVar(env, "AWS_PROFILE");
    if (profile.empty()) profile = "default";
    auto data = env->ReadFile(file);
    if (!data.ok()) {
      return FailedPrecondition(where + ": no AWS credentials in the environment and cannot read " + file);
    }
    bool in_profile = false;
    size_t pos = 0;
    const std::string& text = *data;
    while (pos <= text.size()) {
      size_t nl = text.find('\n', pos);
      std::string line = Trim(text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
      pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
      if (line.empty() || line[0] == '#' || line[0] == ';') continue;
      if (line.front() == '[' && line.back() == ']') {
        in_profile = Trim(line.substr(1, line.size() - 2)) == profile;
        continue;
      }
      if (!in_profile) continue;
      auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      std::string key = Trim(line.substr(0, eq));
      std::string value = Trim(line.substr(eq + 1));
      if (key == "aws_access_key_id") c.access_key_id = value;
      if (key == "aws_secret_access_key") c.secret_access_key = value;
      if (key == "aws_session_token") c.session_token = value;
    }
    if (c.access_key_id.empty() || c.secret_access_key.empty()) {
      return FailedPrecondition(where + ": profile '" + profile + "' in " + file +
                                " lacks aws_access_key_id/aws_secret_access_key");
    }
  }
  RegisterSecret(c.secret_access_key);
  if (!c.session_token.empty()) RegisterSecret(c.session_token);
  return c;
}

std::string ScrubSecrets(std::string_view text, size_t max_len) {
  std::string s = Redact(text);
  // libstdc++'s std::regex matches recursively, several stack frames per
  // character of a match: a provider error text holding a ~100 KB run of
  // key-like characters ("sk-aaaa...") overflowed the stack and killed the
  // daemon. Only the first max_len characters are kept, so the patterns run
  // on a window a little longer than that: a secret that starts in the kept
  // part still has a long enough prefix inside the window to be recognized.
  max_len = std::min(max_len, kMaxScrubbedLength);
  constexpr size_t kMargin = 256;
  if (s.size() > max_len + kMargin) s.resize(max_len + kMargin);
  static const std::regex kPatterns[] = {
      std::regex(R"(sk-[A-Za-z0-9_\-\*\.]{6,})"),
      std::regex(R"((Bearer|Basic|AWS4-HMAC-SHA256)\s+[^\s,"]+)", std::regex::icase),
      std::regex(R"((A3T[A-Z0-9]|AKIA|ASIA)[A-Z0-9]{12,})"),
      std::regex(R"((x-api-key|api[_-]?key|authorization|x-amz-security-token)(["']?\s*[:=]\s*["']?)[^\s,"']+)",
                 std::regex::icase),
  };
  for (const auto& re : kPatterns) s = std::regex_replace(s, re, "[REDACTED]");
  for (auto& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (s.size() > max_len) {
    s.resize(max_len);
    s += "...";
  }
  return s;
}

}  // namespace accelopt::llm
