// Source files embedded in the library at build time (see
// evaluators/CMakeLists.txt), so the backend needs no install path to build
// its harness and calibration programs.
#pragma once

#include <string_view>

namespace accelopt::eval::cpu::embedded {

extern const std::string_view kHarnessMain;   // harness/harness_main.cpp
extern const std::string_view kHarnessRun;    // harness/harness_run.hpp
extern const std::string_view kStats;         // evaluators/stats.hpp
extern const std::string_view kCalibrateMain; // harness/calibrate_main.cpp

}  // namespace accelopt::eval::cpu::embedded
