// Text of the campaign runner's log lines and failure reasons, shared by its
// files (campaign_runner.cpp, campaign_runner_llm.cpp). Internal to the
// runner.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>

namespace accelopt::daemon::runner_text {

// "4.2 s" below ten seconds, "42 s" above.
inline std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
  return buf;
}

// Microseconds since the epoch as "2026-01-02T03:04:05Z".
inline std::string UtcTime(int64_t us) {
  std::time_t t = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace accelopt::daemon::runner_text
