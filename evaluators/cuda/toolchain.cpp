#include "evaluators/cuda/toolchain.hpp"

namespace accelopt::eval::cuda {

std::string ArchFlag(int major, int minor) { return "sm_" + std::to_string(major) + std::to_string(minor); }

std::vector<std::string> KernelFlags(const std::string& arch) {
  return {"-std=c++17", "-O3", "-arch=" + arch, "--cudart", "shared", "-Xcompiler", "-fPIC", "-shared"};
}

}  // namespace accelopt::eval::cuda
