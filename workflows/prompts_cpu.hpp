// The cpu backend's prompt set (backend_prompts.hpp), written from what the
// cpu evaluator does: evaluators/judge/toolchain.hpp (compile flags),
// judge/cpp_rules.hpp and object_check.hpp (what is refused), harness/ (inputs, NaN-filled outputs,
// page-aligned buffers, every call checked, OMP_NUM_THREADS = the slot's
// cores) and the profile cpu_backend.cpp writes (docs/evaluation.md).
// tests/evaluators checks that CpuCompileCommand() is the backend's real
// command line.
//
// Thread safety: pure functions; the set is immutable.
#pragma once

#include <string>

#include "workflows/backend_prompts.hpp"

namespace accelopt::workflows {

const BackendPrompts& CpuPrompts();

// "g++ -std=c++17 -O3 -march=native -fopenmp -fPIC -shared".
std::string CpuCompileCommand();

// The calibration JSON (eval::cpu::Calibration::ToJson, as the daemon
// passes it: evaluators/cpu/calibration.hpp) as prose: CPU, cores, SIMD,
// caches, memory, compiler, calibrated peak GFLOP/s and bandwidth (GB/s)
// per working-set size with the level it lies in. JSON of another shape is
// rendered as a list of facts; an empty object says "(none recorded)".
std::string CpuHardwareProse(const json& calibration);

// The correctness contract of a cpu problem (problem.json): tolerance,
// input distributions, adversarial cases, NaN-filled outputs, read-only
// inputs, every call checked.
std::string CpuCorrectness(const json& problem);

}  // namespace accelopt::workflows
