// Source files embedded in the library at build time (see
// evaluators/CMakeLists.txt), so the backend needs no install path to build
// its judge, runner and calibration programs.
#pragma once

#include <string_view>
#include <vector>

namespace accelopt::eval::cpu::embedded {

struct File {
  std::string_view path;     // relative to the source root, e.g. "evaluators/cpu/harness/judge_main.cpp"
  std::string_view content;
};

// Every file the judge and the runner are compiled from: harness/*.cpp and
// *.hpp, evaluators/stats.hpp and evaluators/output_compare.hpp.
extern const std::vector<File> kHarnessFiles;
extern const std::string_view kCalibrateMain;  // harness/calibrate_main.cpp

}  // namespace accelopt::eval::cpu::embedded
