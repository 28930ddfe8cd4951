// Source files embedded in the library at build time (see
// evaluators/CMakeLists.txt), so a backend needs no install path to build
// the judge. A backend's runner embeds its own (cpu/embedded.hpp).
#pragma once

#include <string_view>
#include <vector>

namespace accelopt::eval::judge::embedded {

struct File {
  std::string_view path;  // relative to the source root, e.g. "evaluators/judge/harness/judge_main.cpp"
  std::string_view content;
};

// Every file the shared judge is compiled from: judge/harness/,
// evaluators/stats.hpp and evaluators/output_compare.hpp.
extern const std::vector<File> kHarnessFiles;

}  // namespace accelopt::eval::judge::embedded
