#include "evaluators/eval_tool/common.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

#include "evaluators/gpu/calibration.hpp"
#include "evaluators/cuda/cuda_backend.hpp"
#include "evaluators/cuda/toolchain.hpp"
#include "evaluators/gpu/nvcc.hpp"
#include "evaluators/triton/triton_backend.hpp"
#include "evaluators/eval_tool/tool_backends.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

std::string DefaultCacheDir(Env* env) {
  if (auto d = env->GetEnvVar("ACCELOPT_CACHE_DIR"); d && !d->empty()) return *d;
  if (auto x = env->GetEnvVar("XDG_CACHE_HOME"); x && !x->empty()) return *x + "/accelopt";
  return env->GetEnvVar("HOME").value_or("/tmp") + "/.cache/accelopt";
}

fs::path Under(const std::string& root, const std::string& path) {
  return fs::path(path).is_relative() ? fs::path(root) / path : fs::path(path);
}

std::string Fixed(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

bool ParseShowingHelp(const std::vector<std::string>& args, const po::options_description& d,
                      const po::positional_options_description* pos) {
  po::command_line_parser parser(args);
  parser.options(d);
  if (pos) parser.positional(*pos);
  po::variables_map vm;
  po::store(parser.run(), vm);
  po::notify(vm);
  if (!vm.count("help")) return false;
  std::cout << d;
  return true;
}

void AddCommon(po::options_description& d, Common& c) {
  d.add_options()("help,h", "this help")("output,o", po::value(&c.output)->default_value("table"), "table | json")(
      "cache-dir", po::value(&c.cache_dir), "cache folder (harness builds, calibration)")(
      "root", po::value(&c.root)->default_value("."), "folder problem paths are relative to")(
      "compiler", po::value(&c.compiler)->default_value("g++"), "C++ compiler")(
      "timeout", po::value(&c.timeout), "settings.timeout_s")("min-time", po::value(&c.min_time),
                                                              "settings.min_time_s")(
      "max-rounds", po::value(&c.max_rounds), "settings.max_rounds")("threads", po::value(&c.threads),
                                                                     "settings.threads (0 = all cores)")(
      "seeds", po::value(&c.seeds), "settings.seeds, comma separated")("settings", po::value(&c.settings_json),
                                                                       "settings as a JSON object")(
      "force-busy", po::bool_switch(&c.force_busy),
      "accept a calibration measured while the machine is busy (recorded as forced)");
}

Result<EvalSettings> MakeSettings(const Common& c) {
  json s = json::object();
  if (!c.settings_json.empty()) {
    ACCELOPT_ASSIGN_OR_RETURN(s, ParseJson(c.settings_json));
  }
  if (c.timeout > 0) s["timeout_s"] = c.timeout;
  if (c.min_time > 0) s["min_time_s"] = c.min_time;
  if (c.max_rounds > 0) s["max_rounds"] = c.max_rounds;
  if (c.threads >= 0) s["threads"] = c.threads;
  if (!c.seeds.empty()) {
    json seeds = json::array();
    std::stringstream in(c.seeds);
    for (std::string x; std::getline(in, x, ',');) seeds.push_back(std::stoull(x));
    s["seeds"] = seeds;
  }
  return EvalSettings::FromJson(s);
}

cpu::CpuBackendOptions BackendOptions(const Common& c) {
  cpu::CpuBackendOptions o;
  o.env = c.env;
  o.cache_dir = c.cache_dir.empty() ? DefaultCacheDir(c.env) : c.cache_dir;
  o.root = c.root;
  o.compiler = c.compiler;
  return o;
}

cpu::CalibrationOptions CalibrationOpts(const Common& c, const cpu::CpuBackendOptions& o) {
  cpu::CalibrationOptions co = cpu::CalibrationOptionsFor(o.cache_dir, c.env, c.compiler);
  co.force_busy = c.force_busy;
  return co;
}

namespace {

// The one GPU id CUDA_VISIBLE_DEVICES names (0 when unset).
Result<int> OneVisibleDevice(Env* env) {
  auto v = env->GetEnvVar("CUDA_VISIBLE_DEVICES");
  if (!v || v->empty()) return 0;
  if (v->find_first_not_of("0123456789") != std::string::npos || v->size() > 4) {
    return FailedPrecondition("CUDA_VISIBLE_DEVICES must name one device id here, not '" + *v + "'");
  }
  return std::stoi(*v);
}

Result<std::string> CacheDir(Env* env, const Common& c) {
  const std::string cache_dir = c.cache_dir.empty() ? DefaultCacheDir(env) : c.cache_dir;
  if (Status st = env->CreateDirs(cache_dir); !st.ok()) {
    return st.WithContext("the cache folder " + cache_dir + " (--cache-dir)");
  }
  return cache_dir;
}

}  // namespace

// The calibration is loaded (or measured) before evaluating, so that a
// refusal is reported once, with its reason, and --force-busy applies.
Result<std::unique_ptr<Backend>> MakeCpuBackend(Env* env, const Common& c, const BackendFlags&) {
  cpu::CpuBackendOptions o = BackendOptions(c);
  ACCELOPT_ASSIGN_OR_RETURN(o.cache_dir, CacheDir(env, c));
  auto cal = cpu::LoadOrCalibrate(cpu::CalibrationPath(o.cache_dir), CalibrationOpts(c, o));
  // Not a bad option, whatever its code (a corrupt calibration file is an
  // InvalidArgument there): exit 3.
  if (!cal.ok()) return Unavailable(cal.status().message());
  o.calibration = std::move(*cal);
  return std::unique_ptr<Backend>(std::make_unique<cpu::CpuBackend>(o));
}

Result<std::unique_ptr<Backend>> MakeCudaBackend(Env* env, const Common& c, const BackendFlags&) {
  ACCELOPT_ASSIGN_OR_RETURN(std::string nvcc, gpu::FindNvcc(env));
  ACCELOPT_ASSIGN_OR_RETURN(int device, OneVisibleDevice(env));
  ACCELOPT_ASSIGN_OR_RETURN(std::string cache_dir, CacheDir(env, c));
  auto cal = gpu::CalibrateGpu(env, nvcc, cache_dir + "/cuda-calibrate", std::to_string(device));
  if (!cal.ok()) {
    return Unavailable("the cuda backend cannot run on GPU " + std::to_string(device) + ": " + cal.status().message() +
                       " ('accelopt-eval check' runs the checks and nvcc without a GPU)");
  }
  cuda::CudaBackendOptions o;
  o.env = env;
  o.root = c.root.empty() ? "." : c.root;
  o.cache_dir = cache_dir;
  o.nvcc = nvcc;
  o.devices = {device};
  o.arch = cuda::ArchFlag(std::max(5, cal->gpu.value("cc_major", 9)), cal->gpu.value("cc_minor", 0));
  o.calibration = *cal;
  return std::unique_ptr<Backend>(std::make_unique<cuda::CudaBackend>(o));
}

Result<std::unique_ptr<Backend>> MakeTritonBackend(Env* env, const Common& c, const BackendFlags& f) {
  ACCELOPT_ASSIGN_OR_RETURN(int device, OneVisibleDevice(env));
  const std::string& python = f.triton_python;
  if (python.empty() || python[0] != '/' || !env->IsFile(python)) {
    return InvalidArgument("--triton-python must be an absolute path to an interpreter, not '" + python + "'");
  }
  ACCELOPT_ASSIGN_OR_RETURN(std::string cache_dir, CacheDir(env, c));
  triton::TritonBackendOptions o;
  o.env = env;
  o.root = c.root.empty() ? "." : c.root;
  o.cache_dir = cache_dir;
  o.python = python;
  o.devices = {device};
  // The GPU's calibration needs nvcc; without it the result has no roofline
  // (and says nothing of one).
  if (auto nvcc = gpu::FindNvcc(env); nvcc.ok()) {
    auto cal = gpu::CalibrateGpu(env, *nvcc, cache_dir + "/cuda-calibrate", std::to_string(device));
    if (cal.ok())
      o.calibration = *cal;
    else
      std::cerr << "accelopt-eval: no GPU calibration (no roofline): " << cal.status().message() << "\n";
  }
  return std::unique_ptr<Backend>(std::make_unique<triton::TritonBackend>(o));
}

}  // namespace accelopt::eval_tool
