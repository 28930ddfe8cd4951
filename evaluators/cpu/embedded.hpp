// The cpu backend's sources compiled at run time, embedded in the library
// at build time (evaluators/CMakeLists.txt, from cpu/embedded.cpp.in), so
// the backend needs no install path to build them.
#pragma once

#include <vector>

#include "evaluators/judge/embedded.hpp"

namespace accelopt::eval::cpu::embedded {

// harness/calibrate_main.cpp: the calibration program (calibration.hpp).
extern const char* const kCalibrateMain;
// The cpu runner's own sources (harness/runner_main.cpp and sandbox.hpp),
// built beside the shared judge (cpu_backend.cpp CpuRunnerBuild); it also
// includes judge/harness/wire.hpp, one of the judge's embedded files.
extern const std::vector<judge::embedded::File> kRunnerFiles;

}  // namespace accelopt::eval::cpu::embedded
