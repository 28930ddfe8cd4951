// What machine and toolchain an evaluation ran on, and a fingerprint of it.
//
// HardwareInfo(): {"cpu_model", "cores" (online CPUs this process may use),
// "simd" ("avx512" | "avx2" | "sse"), "fma", "l3_bytes" (one L3 instance, 0
// when there is none), "caches" (the data and unified cache levels of the
// first CPU this process may use, ascending: [{"level", "bytes" (one
// instance), "shared_cpus" (how many of this process's CPUs share that
// instance)}], from /sys/devices/system/cpu/cpuN/cache), "memory_bytes",
// "compiler" (the kernel compiler's version line), "kernel" (uname release),
// "fingerprint"}. The fingerprint is the sha256 of the fields that change
// results (model, cores, simd, memory, compiler); calibrations are valid for
// one fingerprint only.
//
// Thread safety: reentrant when `env` is (reads /proc and /sys and runs
// `<compiler> --version` through it; the CPUs are env->AllowedCpus()).
#pragma once

#include <string>

#include "base/env.hpp"
#include "base/json.hpp"

namespace accelopt::eval::cpu {

json HardwareInfo(Env* env, const std::string& compiler = "g++");

}  // namespace accelopt::eval::cpu
