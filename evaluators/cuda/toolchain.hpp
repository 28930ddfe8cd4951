// The CUDA toolchain of the cuda backend: finding nvcc on this machine, and
// the flags every candidate .cu is compiled with.
//
// nvcc is looked up at run time (the project builds without a CUDA toolkit;
// the cuda backend is then absent and says why): the environment variable
// ACCELOPT_NVCC when set (set but empty: "no nvcc", for tests and for hosts
// that must not use one), then $CUDA_HOME/bin/nvcc, $CUDA_PATH/bin/nvcc,
// every directory of $PATH, and CUDA's default install prefix
// /usr/local/cuda/bin/nvcc. Every lookup goes through the Env.
//
// Thread safety: reentrant.
#pragma once

#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"

namespace accelopt::eval::cuda {

struct NvccLookup {
  std::string path;                  // the nvcc found ("" when none)
  std::vector<std::string> searched; // what was tried, in order ("ACCELOPT_NVCC (set, empty)", "/usr/local/cuda/bin/nvcc", ...)
};

NvccLookup LookUpNvcc(Env* env);

// The nvcc found, or kUnavailable with one line that says what was searched
// and what to do: "the cuda backend is not available on this machine: no
// nvcc found (searched ...); install the CUDA toolkit or set CUDA_HOME".
Result<std::string> FindNvcc(Env* env);

// The GPU architecture flag for a compute capability ("sm_90" for an H100
// or H200: 9.0). REQUIRES: major >= 5.
std::string ArchFlag(int major, int minor);

// Flags every candidate is compiled with (besides -o and the source):
// -O3, the device's arch, C++17, a shared object for the runner to load,
// the CUDA runtime as a shared library (so the object's undefined symbols
// name every runtime call it makes: static_check.hpp), no fast-math.
std::vector<std::string> KernelFlags(const std::string& arch);

}  // namespace accelopt::eval::cuda
