// accelopt-eval check: a cuda kernel's static checks and nvcc, no GPU.
#include "evaluators/eval_tool/commands.hpp"

#include <iostream>

#include "evaluators/cuda/candidate_check.hpp"
#include "evaluators/cuda/toolchain.hpp"
#include "evaluators/gpu/nvcc.hpp"
#include "evaluators/eval_tool/common.hpp"
#include "evaluators/problem.hpp"

namespace po = boost::program_options;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

// check: everything of a cuda evaluation that needs no GPU (candidate_check.hpp).
int CmdCheck(Env* env, const std::vector<std::string>& args) {
  std::string problem, kernel, arch = "sm_90", output = "table", work, root = ".";
  double timeout = 120;
  po::options_description d(
      "accelopt-eval check --problem DIR --kernel FILE.cu [options]\n"
      "cuda problems: the static checks, nvcc, and the object's symbol checks; runs nothing");
  d.add_options()("help,h", "this help")("problem", po::value(&problem), "problem folder (a cuda problem)")(
      "kernel", po::value(&kernel), "the candidate .cu (default: the problem's baseline.cu)")(
      "arch", po::value(&arch)->default_value("sm_90"), "GPU architecture (sm_90: H100, H200)")(
      "compile-timeout", po::value(&timeout)->default_value(120), "nvcc wall-clock limit, seconds")(
      "work-dir", po::value(&work), "where kernel.cu and kernel.so go (default: a fresh folder under /tmp)")(
      "root", po::value(&root)->default_value("."), "folder problem paths are relative to")(
      "output,o", po::value(&output)->default_value("table"), "table | json");
  if (ParseShowingHelp(args, d)) return 0;
  if (problem.empty()) {
    std::cerr << d;
    return 2;
  }
  auto p = LoadProblem(Under(root, problem).string(), env);
  if (!p.ok()) {
    std::cerr << "accelopt-eval: " << p.status().message() << "\n";
    return 3;
  }
  if (p->backend != "cuda") {
    std::cerr << "accelopt-eval: check is for cuda problems; '" << p->name << "' is a " << p->backend
              << " problem (use run)\n";
    return 2;
  }
  auto nvcc = gpu::FindNvcc(env);
  if (!nvcc.ok()) {
    std::cerr << "accelopt-eval: " << nvcc.status().message() << "\n";
    return 3;
  }
  auto source = env->ReadFile(kernel.empty() ? p->baseline_path : kernel);
  if (!source.ok()) {
    std::cerr << "accelopt-eval: " << source.status() << "\n";
    return 2;
  }
  cuda::CandidateCheckOptions o;
  o.env = env;
  o.nvcc = *nvcc;
  o.arch = arch;
  o.compile_timeout_s = timeout;
  o.function = p->function;
  o.work_dir = work.empty() ? "/tmp/accelopt-check-" + std::to_string(env->RandomU64() % 1000000000000ULL) : work;
  EvalResult r = cuda::CheckCandidate(*source, o);
  if (work.empty()) (void)env->RemoveAll(o.work_dir);
  if (output == "json") {
    std::cout << Dump(r.ToJson(), 2) << "\n";
  } else {
    std::cout << p->name << ": " << EvalStatusName(r.status) << ": " << r.reason << "\n";
    if (!r.error_text.empty()) std::cout << r.error_text << "\n";
  }
  if (r.status == EvalStatus::kInternalError) return 3;
  return r.status == EvalStatus::kOk ? 0 : 1;
}

}  // namespace accelopt::eval_tool
