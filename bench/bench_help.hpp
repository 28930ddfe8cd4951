// --help for the benchmarks: each prints its usage line and exits 0 instead
// of taking "--help" for an argument (a work folder, a count, a kernel).
#pragma once

#include <cstdio>
#include <cstring>

namespace accelopt::bench {

// True (after printing `usage` on stdout) when any argument is -h or --help.
inline bool PrintedHelp(int argc, char** argv, const char* usage) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(usage, stdout);
      return true;
    }
  }
  return false;
}

}  // namespace accelopt::bench
