#include "base/log.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace accelopt {
namespace {

std::mutex& Mu() {
  static std::mutex mu;
  return mu;
}

std::vector<std::string>& Secrets() {
  static std::vector<std::string> secrets;
  return secrets;
}

LogLevel& Level() {
  static LogLevel level = [] {
    const char* env = std::getenv("ACCELOPT_LOG_LEVEL");
    if (env && std::strcmp(env, "debug") == 0) return LogLevel::kDebug;
    if (env && std::strcmp(env, "warning") == 0) return LogLevel::kWarning;
    if (env && std::strcmp(env, "error") == 0) return LogLevel::kError;
    return LogLevel::kInfo;
  }();
  return level;
}

std::string RedactLocked(std::string_view text) {
  std::string out(text);
  for (const auto& s : Secrets()) {
    size_t pos = 0;
    while ((pos = out.find(s, pos)) != std::string::npos) {
      out.replace(pos, s.size(), "[REDACTED]");
      pos += 10;
    }
  }
  return out;
}

}  // namespace

void SetLogLevel(LogLevel level) {
  std::lock_guard lock(Mu());
  Level() = level;
}

LogLevel GetLogLevel() {
  std::lock_guard lock(Mu());
  return Level();
}

void Log(LogLevel level, std::string_view message) {
  std::lock_guard lock(Mu());
  if (static_cast<int>(level) > static_cast<int>(Level())) return;
  std::string line = RedactLocked(message);
  // One line per record: journald splits on newlines.
  for (auto& c : line) {
    if (c == '\n') c = ' ';
  }
  std::fprintf(stderr, "<%d>%s\n", static_cast<int>(level), line.c_str());
}

void RegisterSecret(const std::string& secret) {
  if (secret.size() < 4) return;
  std::lock_guard lock(Mu());
  for (const auto& s : Secrets()) {
    if (s == secret) return;
  }
  Secrets().push_back(secret);
}

std::string Redact(std::string_view text) {
  std::lock_guard lock(Mu());
  return RedactLocked(text);
}

}  // namespace accelopt
