// How acceloptctl prints: tables for people (stdout), JSON with -o json
// (stdout), messages on stderr. Exit codes are documented here and in --help.
#pragma once

#include <string>
#include <vector>

#include "base/json.hpp"

namespace accelopt::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,        // the daemon answered with an error
  kExitUsage = 2,        // bad command line
  kExitUnreachable = 3,  // no daemon at the socket / URL
  kExitNotFound = 4,     // no such campaign, bank, suite
  kExitFailed = 5,       // the campaign ended failed
  kExitCancelled = 6,    // the campaign was cancelled
  kExitTimeout = 7,      // --timeout passed while waiting
  kExitBudget = 8,       // the campaign ended because a budget ran out
  kExitPartial = 9,      // the campaign ended partial: some problems failed
};

extern const char* kExitCodesHelp;

// Prints rows under headers with aligned columns.
void PrintTable(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows);

// Short human forms of numbers.
std::string FormatDouble(double v, int precision = 2);
std::string FormatMicros(double us);
// "2026-12-01 10:00:00 UTC" for microseconds since the epoch; "-" when <= 0.
std::string FormatUtc(int64_t unix_us);
std::string JsonToCell(const json& v);

// Writes `text` to `file` ("-": stdout) and says "wrote FILE" on stderr;
// kExitError with "<who>: cannot write FILE (reason)" when it cannot.
int WriteOutputFile(const std::string& file, const std::string& text, const std::string& who);

}  // namespace accelopt::cli
