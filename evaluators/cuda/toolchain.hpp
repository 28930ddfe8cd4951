// The cuda backend's compile flags: the GPU architecture and the flags every
// candidate .cu is compiled with. Finding nvcc is the GPU layer's
// (evaluators/gpu/nvcc.hpp: the cuda backend, triton's GPU calibration and
// accelopt-eval use it).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

namespace accelopt::eval::cuda {

// The GPU architecture flag for a compute capability ("sm_90" for an H100
// or H200: 9.0). REQUIRES: major >= 5.
std::string ArchFlag(int major, int minor);

// Flags every candidate is compiled with (besides -o and the source):
// -O3, the device's arch, C++17, a shared object for the runner to load,
// the CUDA runtime as a shared library (so the object's undefined symbols
// name every runtime call it makes: static_check.hpp), no fast-math.
std::vector<std::string> KernelFlags(const std::string& arch);

}  // namespace accelopt::eval::cuda
