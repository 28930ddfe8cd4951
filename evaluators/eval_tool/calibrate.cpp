// accelopt-eval calibrate: the cpu calibration (or the cuda one, measured every time).
#include "evaluators/eval_tool/commands.hpp"

#include <cstdio>
#include <iostream>

#include "evaluators/gpu/calibration.hpp"
#include "evaluators/gpu/nvcc.hpp"
#include "evaluators/eval_tool/common.hpp"
#include "evaluators/eval_tool/tool_backends.hpp"

namespace po = boost::program_options;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

int CalibrateCuda(Env* env, const Common& c, bool) {
  // Measured every time (nothing consumes a saved cuda calibration yet).
  auto opts = BackendOptions(c);
  auto nvcc = gpu::FindNvcc(env);
  if (!nvcc.ok()) {
    std::cerr << "accelopt-eval: " << nvcc.status().message() << "\n";
    return 3;
  }
  auto cal = gpu::CalibrateGpu(env, *nvcc, opts.cache_dir + "/cuda-calibrate");
  if (!cal.ok()) {
    std::cerr << "accelopt-eval: " << cal.status().message() << "\n";
    return 3;
  }
  const std::string path = opts.cache_dir + "/cuda-calibration.json";
  if (Status st = env->WriteFileAtomic(path, Dump(cal->ToJson(), 2) + "\n"); !st.ok()) {
    std::cerr << "accelopt-eval: " << st << "\n";
    return 3;
  }
  std::cerr << "calibration in " << path << "\n";
  std::cout << Dump(cal->ToJson(), 2) << "\n";
  return 0;
}

int CmdCalibrate(Env* env, const std::vector<std::string>& args) {
  Common c;
  c.env = env;
  bool force = false;
  std::string backend = "cpu", names;
  for (const ToolBackend& row : ToolBackends()) {
    if (row.calibrate) names += std::string(names.empty() ? "" : " | ") + row.name;
  }
  po::options_description d("accelopt-eval calibrate [options]");
  AddCommon(d, c);
  d.add_options()("force", po::bool_switch(&force), "measure again even when a calibration exists")(
      "backend", po::value(&backend)->default_value("cpu"),
      (names + " (cuda: the GPU CUDA_VISIBLE_DEVICES leaves, measured every time)").c_str());
  if (ParseShowingHelp(args, d)) return 0;
  const ToolBackend* row = FindToolBackend(backend, "--backend");
  if (!row) return 2;
  if (!row->calibrate) {
    std::cerr << "accelopt-eval: the " << row->name << " backend has nothing to calibrate (--backend " << names
              << ")\n";
    return 2;
  }
  return row->calibrate(env, c, force);
}

int CalibrateCpu(Env* env, const Common& c, bool force) {
  auto opts = BackendOptions(c);
  std::string path = cpu::CalibrationPath(opts.cache_dir);
  cpu::CalibrationOptions co = CalibrationOpts(c, opts);
  Result<cpu::Calibration> cal = force ? cpu::CalibrateAndSave(path, co) : cpu::LoadOrCalibrate(path, co);
  if (!cal.ok()) {
    std::cerr << "accelopt-eval: " << cal.status().message() << "\n";
    return 3;
  }
  std::cerr << "calibration in " << path << "\n";
  const json& checks = cal->checks;
  if (!checks.is_object()) {
    std::cerr << "note: this calibration predates the busy-machine checks; 'calibrate --force' on a quiet machine "
                 "replaces it\n";
  } else if (checks.value("verdict", "") == "forced") {
    std::string reasons;
    for (const auto& r : checks.value("reasons", json::array()))
      reasons += (reasons.empty() ? "" : "; ") + r.get<std::string>();
    std::cerr << "warning: accepted although the machine was busy (" << reasons << ")\n";
  }
  if (c.output == "json") {
    std::cout << Dump(cal->ToJson(), 2) << "\n";
    return 0;
  }
  int cores = cal->cores;
  std::cout << "cpu          " << cal->hardware.value("cpu_model", "?") << " (" << cores << " cores, "
            << cal->hardware.value("simd", "?") << ")\n"
            << "fingerprint  " << cal->hardware.value("fingerprint", "?") << "\n"
            << "peak         " << Fixed(cal->peak_gflops, 1) << " GFLOP/s fp32 FMA (one core "
            << Fixed(cal->peak_gflops_one_core, 1) << ")\n"
            << "caches       ";
  for (const auto& l : cal->caches)
    std::cout << "L" << l.level << " " << Fixed(l.CapacityFor(cores, cores) / 1048576.0, 2) << " MiB  ";
  std::cout << "\nbandwidth    (working set -> GB/s whole machine, one core; level)\n";
  for (size_t i = 0; i < cal->bandwidth.size(); ++i) {
    const auto& p = cal->bandwidth[i];
    int level = cal->LevelIndexFor(p.bytes, 0);
    std::string where = level < 0 ? "?"
                        : level == static_cast<int>(cal->caches.size())
                            ? "memory"
                            : "L" + std::to_string(cal->caches[level].level);
    std::printf("  %10.3f MiB %9.1f %9.1f  %s\n", p.bytes / 1048576.0, p.gbps,
                i < cal->bandwidth_one_core.size() ? cal->bandwidth_one_core[i].gbps : 0.0, where.c_str());
  }
  std::fflush(stdout);
  if (checks.is_object()) {
    const json& last = checks.value("attempts", json::array()).empty() ? json::object() : checks["attempts"].back();
    std::cout << "checks       " << checks.value("verdict", "?") << " after "
              << checks.value("attempts", json::array()).size() << " measurement(s): load "
              << Fixed(cal->load_average, 2) << ", others " << Fixed(100 * last.value("others_cpu_fraction", 0.0), 1)
              << "% of the CPUs, peak spread " << Fixed(100 * last.value("peak_spread_all_cores", 0.0), 1)
              << "%, bandwidth spread " << Fixed(100 * last.value("bandwidth_spread_all_cores_median", 0.0), 1)
              << "%\n";
  }
  std::cout << "measured in  " << Fixed(cal->seconds, 1) << " s\n";
  return 0;
}

}  // namespace accelopt::eval_tool
