#include "base/log.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/mutex.hpp"

namespace accelopt {
namespace {

LogLevel LevelFromEnv() {
  const char* env = std::getenv("ACCELOPT_LOG_LEVEL");
  if (env && std::strcmp(env, "debug") == 0) return LogLevel::kDebug;
  if (env && std::strcmp(env, "warning") == 0) return LogLevel::kWarning;
  if (env && std::strcmp(env, "error") == 0) return LogLevel::kError;
  return LogLevel::kInfo;
}

// The process's logging state: every thread logs through it.
struct LogState {
  Mutex mu;
  LogLevel level ACCELOPT_GUARDED_BY(mu) = LevelFromEnv();
  std::vector<std::string> secrets ACCELOPT_GUARDED_BY(mu);
};

LogState& State() {
  static LogState state;
  return state;
}

std::string RedactLocked(const LogState& st, std::string_view text) ACCELOPT_REQUIRES(st.mu) {
  std::string out(text);
  for (const auto& s : st.secrets) {
    size_t pos = 0;
    while ((pos = out.find(s, pos)) != std::string::npos) {
      out.replace(pos, s.size(), "[REDACTED]");
      pos += 10;
    }
  }
  return out;
}

}  // namespace

void Log(LogLevel level, std::string_view message) {
  LogState& st = State();
  MutexLock lock(&st.mu);
  if (static_cast<int>(level) > static_cast<int>(st.level)) return;
  std::string line = RedactLocked(st, message);
  // One line per record: journald splits on newlines.
  for (auto& c : line) {
    if (c == '\n') c = ' ';
  }
  std::fprintf(stderr, "<%d>%s\n", static_cast<int>(level), line.c_str());
}

void RegisterSecret(const std::string& secret) {
  if (secret.size() < 4) return;
  LogState& st = State();
  MutexLock lock(&st.mu);
  for (const auto& s : st.secrets) {
    if (s == secret) return;
  }
  st.secrets.push_back(secret);
}

std::string Redact(std::string_view text) {
  LogState& st = State();
  MutexLock lock(&st.mu);
  return RedactLocked(st, text);
}

}  // namespace accelopt
