// Logging to stderr with syslog priority prefixes ("<3>", "<6>", ...), which
// journald turns into priorities. Thread-safe (one mutex around each line).
//
// Secrets: every registered secret (API keys, bearer tokens) is replaced by
// "[REDACTED]" in each line before it is written, and Redact() does the same
// for text going elsewhere (error messages, events). Register a secret as soon
// as it is loaded.
#pragma once

#include <string>
#include <string_view>

namespace accelopt {

enum class LogLevel { kError = 3, kWarning = 4, kNotice = 5, kInfo = 6, kDebug = 7 };

// Lines above the level are dropped. Default kInfo; ACCELOPT_LOG_LEVEL=debug
// in the environment lowers it at first use.
void Log(LogLevel level, std::string_view message);
inline void LogError(std::string_view m) { Log(LogLevel::kError, m); }
inline void LogWarning(std::string_view m) { Log(LogLevel::kWarning, m); }
inline void LogInfo(std::string_view m) { Log(LogLevel::kInfo, m); }

// Registers a secret to scrub. Secrets shorter than 4 characters are ignored
// (they would redact ordinary text).
void RegisterSecret(const std::string& secret);

// `text` with every registered secret replaced by "[REDACTED]".
std::string Redact(std::string_view text);

}  // namespace accelopt
