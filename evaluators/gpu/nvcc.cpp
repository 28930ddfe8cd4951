#include "evaluators/gpu/nvcc.hpp"

#include <sstream>

namespace accelopt::eval::gpu {

NvccLookup LookUpNvcc(Env* env) {
  NvccLookup out;
  auto try_path = [&](const std::string& p, const std::string& why) {
    out.searched.push_back(why.empty() ? p : why + " " + p);
    if (!p.empty() && env->IsFile(p)) {
      out.path = p;
      return true;
    }
    return false;
  };
  if (auto forced = env->GetEnvVar("ACCELOPT_NVCC")) {
    if (forced->empty()) {
      out.searched.push_back("ACCELOPT_NVCC (set, empty: no nvcc)");
      return out;
    }
    try_path(*forced, "ACCELOPT_NVCC");
    return out;  // an explicit choice is not second-guessed
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (auto home = env->GetEnvVar(var); home && !home->empty())
      if (try_path(*home + "/bin/nvcc", std::string("$") + var + ":")) return out;
  }
  if (auto path = env->GetEnvVar("PATH"); path && !path->empty()) {
    std::istringstream dirs(*path);
    for (std::string d; std::getline(dirs, d, ':');)
      if (!d.empty() && d.front() == '/' && try_path(d + "/nvcc", "$PATH:")) return out;
  }
  try_path("/usr/local/cuda/bin/nvcc", "default prefix:");
  return out;
}

Result<std::string> FindNvcc(Env* env) {
  NvccLookup l = LookUpNvcc(env);
  if (!l.path.empty()) return l.path;
  std::string tried;
  for (const auto& s : l.searched) tried += (tried.empty() ? "" : ", ") + s;
  return Unavailable("the cuda backend is not available on this machine: no nvcc found (searched " + tried +
                     "); install the CUDA toolkit (12 or later) or set CUDA_HOME");
}

}  // namespace accelopt::eval::gpu
