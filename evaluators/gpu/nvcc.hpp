// Finding nvcc on this machine, for the GPU layer: the cuda backend compiles
// its candidates with it, and the GPU calibration (gpu/calibration.hpp) that
// cuda and triton share compiles its program with it.
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

namespace accelopt::eval::gpu {

struct NvccLookup {
  std::string path;  // the nvcc found ("" when none)
  std::vector<std::string>
      searched;  // what was tried, in order ("ACCELOPT_NVCC (set, empty)", "/usr/local/cuda/bin/nvcc", ...)
};

NvccLookup LookUpNvcc(Env* env);

// The nvcc found, or kUnavailable with one line that says what was searched
// and what to do: "the cuda backend is not available on this machine: no
// nvcc found (searched ...); install the CUDA toolkit or set CUDA_HOME".
Result<std::string> FindNvcc(Env* env);

}  // namespace accelopt::eval::gpu
