// accelopt-eval: evaluate kernels by hand with the cpu backend (and nki problems
// with the nki backend).
//
//   accelopt-eval calibrate [--force] [--force-busy]
//   accelopt-eval run --problem suites/cpu/silu --kernel my_silu.cpp [--compare baseline.cpp] [settings]
//                 (an nki problem: --nki-python P --nki-cores 0 ..., the nki backend; no --compare)
//   accelopt-eval baseline suites/cpu [settings]
//   accelopt-eval job --request request.json --result result.json   (a Slurm job's body)
//   accelopt-eval import nkibench PATH/TO/AccelOpt/NKIBench --out suites/nki [--force] [--dry-run]
//   accelopt-eval doctor nki [--python P] [--cores 0-31] [--runner-dir D] ...   (is this a Trainium host?)
//   accelopt-eval prompts --problem suites/cpu/silu --role planner|executor|summarizer
//                 [--mode default|paper] [--memory FILE] [--kernel FILE] [--result FILE]
//                 [--plan FILE] [--slow FILE --fast FILE --speedup X] [--calibration FILE]
//
// `prompts` prints the exact system and user prompt a campaign in that mode
// would send that role (workflows/prompt_preview.hpp); it calls no model and
// measures nothing (the hardware facts are the calibration file's).
//
// The calibration is <cache dir>/calibration.json, measured by the same
// procedure as the daemon's (calibration.hpp): refused on a busy machine
// unless --force-busy (calibrate, run and baseline accept it; run and
// baseline calibrate first when there is no calibration yet).
//
// Common options: -o table|json (default table), --cache-dir DIR (default
// $ACCELOPT_CACHE_DIR, else $XDG_CACHE_HOME/accelopt, else ~/.cache/accelopt),
// --root DIR (problem paths are relative to it; default "."), --compiler CXX.
// Settings: --timeout S, --min-time S, --max-rounds N, --threads N, --seeds 0,21,...,
// --settings JSON (any EvalSettings field, see docs/contracts.md).
//
// Messages go to stderr; tables or JSON to stdout. Exit codes:
//   0  success (run: the kernel is correct, status ok)
//   1  the kernel (or one of the baselines) failed; the result says why
//   2  usage error
//   3  internal error (calibration, unreadable problem, missing compiler)
#include <boost/program_options.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "base/baseline_table.hpp"
#include "base/env.hpp"
#include "base/sha256.hpp"
#include "evaluators/cpu/calibration.hpp"
#include "evaluators/cpu/cpu_backend.hpp"
#include "evaluators/cuda/calibration.hpp"
#include "evaluators/cuda/candidate_check.hpp"
#include "evaluators/cuda/cuda_backend.hpp"
#include "evaluators/cuda/toolchain.hpp"
#include "evaluators/nki/doctor.hpp"
#include "evaluators/nki/nki_backend.hpp"
#include "evaluators/nki/nkibench_import.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/suites.hpp"
#include "workflows/memory_bank.hpp"
#include "workflows/prompt_preview.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace accelopt;
using namespace accelopt::eval;

namespace {

std::string DefaultCacheDir(Env* env) {
  if (auto d = env->GetEnvVar("ACCELOPT_CACHE_DIR"); d && !d->empty()) return *d;
  if (auto x = env->GetEnvVar("XDG_CACHE_HOME"); x && !x->empty()) return *x + "/accelopt";
  return env->GetEnvVar("HOME").value_or("/tmp") + "/.cache/accelopt";
}

// `path`, relative to `root` unless absolute.
fs::path Under(const std::string& root, const std::string& path) {
  return fs::path(path).is_relative() ? fs::path(root) / path : fs::path(path);
}

std::string Fixed(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

struct Common {
  Env* env = nullptr;  // main's Env::Default(): every file, variable and process goes through it
  std::string output = "table", cache_dir, root = ".", compiler = "g++";
  std::string settings_json, seeds;
  double timeout = 0, min_time = 0;
  int max_rounds = 0, threads = -1;
  bool force_busy = false;
};

void AddCommon(po::options_description& d, Common& c) {
  d.add_options()("help,h", "this help")
      ("output,o", po::value(&c.output)->default_value("table"), "table | json")
      ("cache-dir", po::value(&c.cache_dir), "cache folder (harness builds, calibration)")
      ("root", po::value(&c.root)->default_value("."), "folder problem paths are relative to")
      ("compiler", po::value(&c.compiler)->default_value("g++"), "C++ compiler")
      ("timeout", po::value(&c.timeout), "settings.timeout_s")
      ("min-time", po::value(&c.min_time), "settings.min_time_s")
      ("max-rounds", po::value(&c.max_rounds), "settings.max_rounds")
      ("threads", po::value(&c.threads), "settings.threads (0 = all cores)")
      ("seeds", po::value(&c.seeds), "settings.seeds, comma separated")
      ("settings", po::value(&c.settings_json), "settings as a JSON object")
      ("force-busy", po::bool_switch(&c.force_busy),
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

// Loads (or measures) the calibration before evaluating, so that a refusal
// is reported once, with its reason, and --force-busy applies.
bool PrepareCalibration(const Common& c, cpu::CpuBackendOptions& o) {
  (void)c.env->CreateDirs(o.cache_dir);
  auto cal = cpu::LoadOrCalibrate(cpu::CalibrationPath(o.cache_dir), CalibrationOpts(c, o));
  if (!cal.ok()) {
    std::cerr << "accelopt-eval: " << cal.status().message() << "\n";
    return false;
  }
  o.calibration = *cal;
  return true;
}

void PrintResultTable(const std::string& name, const EvalResult& r) {
  std::cout << "problem      " << name << "\n"
            << "status       " << EvalStatusName(r.status) << "\n"
            << "reason       " << r.reason << "\n";
  if (r.latency) {
    std::cout << "median       " << Fixed(r.latency->median_us, 2) << " us   (min " << Fixed(r.latency->min_us, 2)
              << ", mean " << Fixed(r.latency->mean_us, 2) << ", spread " << Fixed(100 * r.latency->spread, 2)
              << "%, " << r.latency->samples_us.size() << " samples, " << r.latency->rounds << " rounds)\n";
  }
  if (r.percent_of_peak)
    std::cout << "% of peak    " << Fixed(*r.percent_of_peak, 2) << "   (roofline " << Fixed(*r.peak_latency_us, 2) << " us)\n";
  if (r.max_rel_error) std::cout << "max rel err  " << *r.max_rel_error << "\n";
  if (r.comparison.is_object()) {
    const json& c = r.comparison;
    std::cout << "speedup      " << Fixed(c.value("speedup", 0.0), 3) << "x  (~95% interval "
              << Fixed(c.value("speedup_low", 0.0), 3) << " .. " << Fixed(c.value("speedup_high", 0.0), 3)
              << "x, against " << Fixed(c.value("baseline_median_us", 0.0), 2) << " us measured interleaved"
              << (c.value("noisy", false) ? "; NOISY: a spread stayed above the target" : "") << ")\n";
  }
  for (const auto& [k, v] : r.profile) std::cout << "  " << k << std::string(k.size() < 26 ? 26 - k.size() : 1, ' ') << v << "\n";
  std::cout << "timings      compile " << Fixed(r.timings.compile_s, 2) << " s, checks " << Fixed(r.timings.check_s, 2)
            << " s, run " << Fixed(r.timings.measure_s, 2) << " s, total " << Fixed(r.timings.total_s, 2) << " s\n";
  if (!r.error_text.empty()) std::cout << "---- error text ----\n" << r.error_text << "\n";
}

int Calibrate(Env* env, const std::vector<std::string>& args) {
  Common c;
  c.env = env;
  bool force = false;
  std::string backend = "cpu";
  po::options_description d("accelopt-eval calibrate [options]");
  AddCommon(d, c);
  d.add_options()("force", po::bool_switch(&force), "measure again even when a calibration exists")(
      "backend", po::value(&backend)->default_value("cpu"), "cpu | cuda (the GPU CUDA_VISIBLE_DEVICES leaves)");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).run(), vm);
  po::notify(vm);
  if (vm.count("help")) { std::cout << d; return 0; }
  auto opts = BackendOptions(c);
  if (backend == "cuda") {
    // Measured every time (nothing consumes a saved cuda calibration yet).
    auto nvcc = cuda::FindNvcc(env);
    if (!nvcc.ok()) { std::cerr << "accelopt-eval: " << nvcc.status().message() << "\n"; return 3; }
    auto cal = cuda::CalibrateGpu(env, *nvcc, opts.cache_dir + "/cuda-calibrate");
    if (!cal.ok()) { std::cerr << "accelopt-eval: " << cal.status().message() << "\n"; return 3; }
    const std::string path = opts.cache_dir + "/cuda-calibration.json";
    if (Status st = env->WriteFileAtomic(path, Dump(cal->ToJson(), 2) + "\n"); !st.ok()) {
      std::cerr << "accelopt-eval: " << st << "\n";
      return 3;
    }
    std::cerr << "calibration in " << path << "\n";
    std::cout << Dump(cal->ToJson(), 2) << "\n";
    return 0;
  }
  if (backend != "cpu") { std::cerr << "accelopt-eval: --backend must be cpu or cuda\n"; return 2; }
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
    for (const auto& r : checks.value("reasons", json::array())) reasons += (reasons.empty() ? "" : "; ") + r.get<std::string>();
    std::cerr << "warning: accepted although the machine was busy (" << reasons << ")\n";
  }
  if (c.output == "json") { std::cout << Dump(cal->ToJson(), 2) << "\n"; return 0; }
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
    std::string where = level < 0 ? "?" : level == static_cast<int>(cal->caches.size()) ? "memory"
                                                                                        : "L" + std::to_string(cal->caches[level].level);
    std::printf("  %10.3f MiB %9.1f %9.1f  %s\n", p.bytes / 1048576.0, p.gbps,
                i < cal->bandwidth_one_core.size() ? cal->bandwidth_one_core[i].gbps : 0.0, where.c_str());
  }
  std::fflush(stdout);
  if (checks.is_object()) {
    const json& last = checks.value("attempts", json::array()).empty() ? json::object() : checks["attempts"].back();
    std::cout << "checks       " << checks.value("verdict", "?") << " after " << checks.value("attempts", json::array()).size()
              << " measurement(s): load " << Fixed(cal->load_average, 2) << ", others "
              << Fixed(100 * last.value("others_cpu_fraction", 0.0), 1) << "% of the CPUs, peak spread "
              << Fixed(100 * last.value("peak_spread_all_cores", 0.0), 1) << "%, bandwidth spread "
              << Fixed(100 * last.value("bandwidth_spread_all_cores_median", 0.0), 1) << "%\n";
  }
  std::cout << "measured in  " << Fixed(cal->seconds, 1) << " s\n";
  return 0;
}

// The cuda backend for accelopt-eval run/baseline: nvcc, then the GPU's
// calibration (measured now, on the GPU CUDA_VISIBLE_DEVICES names, default
// 0), which also proves the GPU usable; null with the reason on stderr
// (no nvcc, no GPU) — the caller exits 3, as for a broken backend.
std::unique_ptr<cuda::CudaBackend> MakeCudaBackend(Env* env, const Common& c) {
  auto nvcc = cuda::FindNvcc(env);
  if (!nvcc.ok()) {
    std::cerr << "accelopt-eval: " << nvcc.status().message() << "\n";
    return nullptr;
  }
  int device = 0;
  if (auto v = env->GetEnvVar("CUDA_VISIBLE_DEVICES"); v && !v->empty()) {
    if (v->find_first_not_of("0123456789") != std::string::npos) {
      std::cerr << "accelopt-eval: CUDA_VISIBLE_DEVICES must name one device id here, not '" << *v << "'\n";
      return nullptr;
    }
    device = std::stoi(*v);
  }
  const std::string cache_dir = c.cache_dir.empty() ? DefaultCacheDir(env) : c.cache_dir;
  (void)env->CreateDirs(cache_dir);
  auto cal = cuda::CalibrateGpu(env, *nvcc, cache_dir + "/cuda-calibrate", std::to_string(device));
  if (!cal.ok()) {
    std::cerr << "accelopt-eval: the cuda backend cannot run on GPU " << device << ": " << cal.status().message()
              << " ('accelopt-eval check' runs the checks and nvcc without a GPU)\n";
    return nullptr;
  }
  cuda::CudaBackendOptions o;
  o.env = env;
  o.root = c.root.empty() ? "." : c.root;
  o.cache_dir = cache_dir;
  o.nvcc = *nvcc;
  o.devices = {device};
  o.arch = cuda::ArchFlag(std::max(5, cal->gpu.value("cc_major", 9)), cal->gpu.value("cc_minor", 0));
  o.calibration = *cal;
  return std::make_unique<cuda::CudaBackend>(o);
}

// check: everything of a cuda evaluation that needs no GPU (candidate_check.hpp).
int Check(Env* env, const std::vector<std::string>& args) {
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
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).run(), vm);
  po::notify(vm);
  if (vm.count("help")) { std::cout << d; return 0; }
  if (problem.empty()) { std::cerr << d; return 2; }
  auto p = LoadProblem(Under(root, problem).string(), env);
  if (!p.ok()) { std::cerr << "accelopt-eval: " << p.status().message() << "\n"; return 3; }
  if (p->backend != "cuda") {
    std::cerr << "accelopt-eval: check is for cuda problems; '" << p->name << "' is a " << p->backend
              << " problem (use run)\n";
    return 2;
  }
  auto nvcc = cuda::FindNvcc(env);
  if (!nvcc.ok()) { std::cerr << "accelopt-eval: " << nvcc.status().message() << "\n"; return 3; }
  auto source = env->ReadFile(kernel.empty() ? p->baseline_path : kernel);
  if (!source.ok()) { std::cerr << "accelopt-eval: " << source.status() << "\n"; return 2; }
  cuda::CandidateCheckOptions o;
  o.env = env;
  o.nvcc = *nvcc;
  o.arch = arch;
  o.compile_timeout_s = timeout;
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

int RunOne(Env* env, const std::vector<std::string>& args) {
  Common c;
  c.env = env;
  std::string problem, kernel, compare;
  std::string nki_python = "/opt/aws_neuronx_venv_pytorch/bin/python", nki_cores = "0", nki_generation = "trn1";
  std::string nki_runner_dir = "/usr/share/accelopt/nki";
  po::options_description d("accelopt-eval run --problem DIR --kernel FILE [options]");
  AddCommon(d, c);
  d.add_options()("problem", po::value(&problem), "problem folder")("kernel", po::value(&kernel), "kernel source file")(
      "compare", po::value(&compare),
      "a second kernel (e.g. the problem's baseline.cpp) timed interleaved with --kernel: prints the speedup over it "
      "with a ~95% interval")
      ("nki-python", po::value(&nki_python)->default_value(nki_python), "nki problems: the Neuron SDK's interpreter")
      ("nki-cores", po::value(&nki_cores)->default_value(nki_cores), "nki problems: the NeuronCores to use")
      ("nki-generation", po::value(&nki_generation)->default_value(nki_generation), "nki problems: trn1 | trn2 | trn3")
      ("nki-runner-dir", po::value(&nki_runner_dir)->default_value(nki_runner_dir),
       "nki problems: folder of runner.py and reference_runner.py");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).run(), vm);
  po::notify(vm);
  if (vm.count("help")) { std::cout << d; return 0; }
  if (problem.empty() || kernel.empty()) { std::cerr << d; return 2; }
  auto settings = MakeSettings(c);
  if (!settings.ok()) { std::cerr << "accelopt-eval: " << settings.status() << "\n"; return 2; }
  auto source = env->ReadFile(kernel);
  if (!source.ok()) { std::cerr << "accelopt-eval: " << source.status() << "\n"; return 2; }
  // A problem that cannot be loaded is refused before calibrating (which may
  // take seconds); the backend loads it again, the same way.
  auto loaded = LoadProblem(Under(c.root, problem).string(), env);
  if (!loaded.ok()) {
    std::cerr << "accelopt-eval: " << loaded.status().message() << "\n";
    return 3;
  }
  if (loaded->backend == "nki") {
    // A Trainium host's NeuronCores (docs/evaluation.md, "The nki backend").
    if (!compare.empty()) { std::cerr << "accelopt-eval: --compare is not built for nki problems\n"; return 2; }
    auto nc = nki::NkiConfig::FromJson({{"python", nki_python}, {"cores", nki_cores}, {"generation", nki_generation},
                                        {"runner_dir", nki_runner_dir}},
                                       "run");
    if (!nc.ok()) { std::cerr << "accelopt-eval: " << nc.status().message() << "\n"; return 2; }
    nki::NkiBackendOptions no;
    no.config = *nc;
    no.env = env;
    nki::NkiBackend backend(no);
    EvalRequest req{"", "nki", Under(env->CurrentDir(), loaded->dir).string(), *source, *settings};
    EvalResult r = backend.Evaluate(req, nullptr);
    if (c.output == "json") std::cout << Dump(r.ToJson(), 2) << "\n";
    else PrintResultTable(problem, r);
    if (r.status == EvalStatus::kInternalError) return 3;
    return r.status == EvalStatus::kOk ? 0 : 1;
  }
  std::unique_ptr<Backend> backend_ptr;
  if (loaded->backend == "cuda") {
    backend_ptr = MakeCudaBackend(env, c);
    if (!backend_ptr) return 3;
  } else {
    cpu::CpuBackendOptions bo = BackendOptions(c);
    if (!PrepareCalibration(c, bo)) return 3;
    backend_ptr = std::make_unique<cpu::CpuBackend>(bo);
  }
  Backend& backend = *backend_ptr;
  EvalRequest req{"", backend.name(), problem, *source, *settings};
  if (!compare.empty()) {
    auto other = env->ReadFile(compare);
    if (!other.ok()) { std::cerr << "accelopt-eval: " << other.status() << "\n"; return 2; }
    req.compare_source = *other;
  }
  EvalResult r = backend.Evaluate(req, nullptr);
  if (c.output == "json") std::cout << Dump(r.ToJson(), 2) << "\n";
  else PrintResultTable(problem, r);
  if (r.status == EvalStatus::kInternalError) return 3;
  return r.status == EvalStatus::kOk ? 0 : 1;
}

int Baseline(Env* env, const std::vector<std::string>& args) {
  Common c;
  c.env = env;
  std::string suite;
  po::options_description d("accelopt-eval baseline SUITE_DIR [options]");
  AddCommon(d, c);
  d.add_options()("suite", po::value(&suite), "suite folder (e.g. suites/cpu)");
  po::positional_options_description pos;
  pos.add("suite", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) { std::cout << d; return 0; }
  if (suite.empty()) { std::cerr << d; return 2; }
  auto settings = MakeSettings(c);
  if (!settings.ok()) { std::cerr << "accelopt-eval: " << settings.status() << "\n"; return 2; }
  auto dirs = ListProblemDirs(Under(c.root, suite).string(), env);
  if (!dirs.ok()) { std::cerr << "accelopt-eval: " << dirs.status() << "\n"; return 2; }
  bool cuda_suite = false;
  for (const auto& dir : *dirs)
    if (auto p = LoadProblem(dir, env); p.ok() && p->backend == "cuda") cuda_suite = true;
  std::unique_ptr<Backend> backend_ptr;
  if (cuda_suite) {
    backend_ptr = MakeCudaBackend(env, c);
    if (!backend_ptr) return 3;
  } else {
    cpu::CpuBackendOptions opts = BackendOptions(c);
    opts.root = "/";
    if (!PrepareCalibration(c, opts)) return 3;
    backend_ptr = std::make_unique<cpu::CpuBackend>(opts);
  }
  Backend& backend = *backend_ptr;
  json all = json::array();
  int failures = 0;
  std::vector<double> percents;
  if (c.output != "json") std::cout << baseline_table::HeaderLine() << std::flush;  // acceloptctl baseline's too
  for (const auto& dir : *dirs) {
    auto problem = LoadProblem(dir, env);
    std::string name = fs::path(dir).filename().string();
    EvalResult r;
    if (!problem.ok()) {
      r = EvalResult::Failure(EvalStatus::kInternalError, problem.status().message());
    } else {
      auto src = env->ReadFile(problem->baseline_path);
      EvalRequest req{"", backend.name(), Under(env->CurrentDir(), dir).string(), src.ok() ? *src : "", *settings};
      r = backend.Evaluate(req, nullptr);
    }
    if (r.status != EvalStatus::kOk) ++failures;
    if (r.percent_of_peak && *r.percent_of_peak > 0) percents.push_back(*r.percent_of_peak);
    if (c.output == "json") {
      all.push_back({{"problem", name}, {"result", r.ToJson()}});
    } else {
      std::cout << baseline_table::RowLine(
                       {name, EvalStatusName(r.status), r.latency ? std::optional(r.latency->median_us) : std::nullopt,
                        r.latency ? std::optional(r.latency->spread) : std::nullopt, r.percent_of_peak,
                        problem.ok() ? problem->bound : "?", r.status == EvalStatus::kOk ? "" : r.reason.substr(0, 100)})
                << std::flush;
    }
  }
  double geo = 0;
  for (double p : percents) geo += std::log(p);
  geo = percents.empty() ? 0 : std::exp(geo / percents.size());
  if (c.output == "json") std::cout << Dump({{"problems", all}, {"geomean_percent_of_peak", geo}}, 2) << "\n";
  else std::cout << baseline_table::GeomeanLine(percents);
  return failures ? 1 : 0;
}

// One evaluation as a Slurm job (evaluators/slurm/slurm_backend.hpp): the
// request (an EvalRequest as JSON) from a file, the result written
// atomically to another, naming the sha256 of the request it answers.
// Exit 0 whenever a result was written (the candidate's failures included).
int Job(Env* env, const std::vector<std::string>& args) {
  Common c;
  c.env = env;
  std::string request_path, result_path;
  po::options_description d("accelopt-eval job --request FILE --result FILE [--cache-dir DIR] [--force-busy]");
  AddCommon(d, c);
  d.add_options()("request", po::value(&request_path), "the EvalRequest (JSON)")(
      "result", po::value(&result_path), "where the result goes (JSON, written atomically)");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).run(), vm);
  po::notify(vm);
  if (vm.count("help")) { std::cout << d; return 0; }
  if (request_path.empty() || result_path.empty()) { std::cerr << d; return 2; }
  auto text = env->ReadFile(request_path);
  if (!text.ok()) { std::cerr << "accelopt-eval: " << text.status() << "\n"; return 3; }
  EvalResult r;
  auto parsed = ParseJson(*text);
  auto req = parsed.ok() ? EvalRequest::FromJson(*parsed) : Result<EvalRequest>(parsed.status());
  cpu::CpuBackendOptions bo = BackendOptions(c);
  bo.root = "/";
  if (!req.ok()) {
    r = EvalResult::Failure(EvalStatus::kInternalError, "unreadable request: " + req.status().message());
  } else if (!PrepareCalibration(c, bo)) {
    r = EvalResult::Failure(EvalStatus::kInternalError, "calibration on the node failed (see the job's output)");
  } else {
    cpu::CpuBackend backend(bo);
    r = backend.Evaluate(*req, nullptr);
  }
  json out = {{"request_sha256", Sha256Hex(*text)}, {"result", r.ToJson()}};
  Status st = env->WriteFileAtomic(result_path, Dump(out));
  if (!st.ok()) { std::cerr << "accelopt-eval: " << st << "\n"; return 3; }
  std::cerr << "accelopt-eval: " << EvalStatusName(r.status) << ": " << r.reason << "\n";
  return 0;
}

// The calibration as the daemon hands it to campaigns (without the busy checks).
Result<json> CampaignHardware(Env* env, const std::string& path) {
  ACCELOPT_ASSIGN_OR_RETURN(json raw, ReadJsonFile(env, path));
  ACCELOPT_ASSIGN_OR_RETURN(cpu::Calibration cal, cpu::Calibration::FromJson(raw));
  json facts = cal.ToJson();
  facts.erase("checks");
  return facts;
}

int Prompts(Env* env, const std::vector<std::string>& args) {
  std::string problem, role, mode = "default", memory, kernel, result, plan, slow, fast, calibration;
  std::string cache_dir, root = ".";
  double speedup = 0;
  uint64_t seed = 1;
  po::options_description d(
      "accelopt-eval prompts --problem DIR --role planner|executor|summarizer [options]\n"
      "Prints the exact prompts (system, then user) a campaign would send that role; calls no model");
  d.add_options()("help,h", "this help")
      ("problem", po::value(&problem), "problem folder (problem.json, reference.cpp, baseline.cpp)")
      ("role", po::value(&role), "planner | executor | summarizer")
      ("mode", po::value(&mode)->default_value("default"), "default | paper (the campaign's mode)")
      ("memory", po::value(&memory), "planner: a bank export (memory export) or an AccelOpt experience list")
      ("kernel", po::value(&kernel), "the current kernel (default: the problem's baseline.cpp)")
      ("result", po::value(&result),
       "planner: an evaluation result of the current kernel ('accelopt-eval run -o json'); its profile is shown")
      ("plan", po::value(&plan), "executor: a file with the plan (first line the title)")
      ("slow", po::value(&slow), "summarizer: the slow kernel (default: the baseline)")
      ("fast", po::value(&fast), "summarizer: the fast kernel (default: --kernel)")
      ("speedup", po::value(&speedup), "summarizer: slow / fast latency (default mode shows it; paper never does)")
      ("calibration", po::value(&calibration), "the hardware facts (default: <cache dir>/calibration.json)")
      ("cache-dir", po::value(&cache_dir), "cache folder of 'accelopt-eval calibrate'")
      ("root", po::value(&root)->default_value("."), "folder problem paths are relative to")
      ("seed", po::value(&seed)->default_value(1), "seed of the planner's profile order");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).run(), vm);
  po::notify(vm);
  if (vm.count("help")) { std::cout << d; return 0; }
  if (problem.empty() || role.empty()) { std::cerr << d; return 2; }
  if (mode != "default" && mode != "paper") { std::cerr << "accelopt-eval: --mode must be default or paper\n"; return 2; }
  auto fail = [](const Status& st, int code) {
    std::cerr << "accelopt-eval: " << st.message() << "\n";
    return code;
  };
  workflows::PromptPreview in;
  in.mode = workflows::PromptModeOf(mode);
  in.seed = seed;
  auto src = LoadProblemSource(Under(root, problem).string(), problem, env);
  if (!src.ok()) return fail(src.status(), 2);
  in.source = std::move(*src);
  const bool cuda_problem = in.source.problem.value("backend", "") == "cuda";
  if (calibration.empty()) {
    const std::string dir = cache_dir.empty() ? DefaultCacheDir(env) : cache_dir;
    calibration = cuda_problem ? dir + "/cuda-calibration.json" : cpu::CalibrationPath(dir);
  }
  // A cuda problem's facts are the cuda calibration's JSON as written
  // ('accelopt-eval calibrate --backend cuda'), rendered by the cuda prompt set.
  auto hw = cuda_problem ? ReadJsonFile(env, calibration) : CampaignHardware(env, calibration);
  if (!hw.ok()) {
    return fail(hw.status().WithContext("the hardware facts (run 'accelopt-eval calibrate' or pass --calibration)"), 3);
  }
  in.hardware = std::move(*hw);
  auto text = [&](const std::string& path, std::string* out) {
    if (path.empty()) return Status::Ok();
    auto t = env->ReadFile(path);
    if (!t.ok()) return t.status();
    *out = std::move(*t);
    return Status::Ok();
  };
  std::string plan_text;
  for (auto [path, out] : {std::pair{kernel, &in.kernel}, {slow, &in.slow}, {fast, &in.fast}, {plan, &plan_text}}) {
    if (Status st = text(path, out); !st.ok()) return fail(st, 2);
  }
  if (!plan_text.empty()) {
    auto parsed = workflows::ParsePlannerReply(plan_text);
    if (!parsed.ok()) return fail(parsed.status().WithContext(plan), 2);
    in.plan = *parsed;
  }
  if (!result.empty()) {
    auto r = ReadJsonFile(env, result);
    if (!r.ok()) return fail(r.status(), 2);
    in.profile = r->is_object() && r->contains("profile") ? (*r)["profile"] : json::object();
  }
  if (!memory.empty()) {
    auto doc = ReadJsonFile(env, memory);
    if (!doc.ok()) return fail(doc.status(), 2);
    auto items = workflows::ParseImport(*doc, "auto", "file");
    if (!items.ok()) return fail(items.status().WithContext(memory), 2);
    in.memory = std::move(*items);
  }
  if (speedup > 0) in.speedup = speedup;
  auto prompt = workflows::RenderRolePrompt(role, in);
  if (!prompt.ok()) return fail(prompt.status(), 2);
  std::cout << workflows::FormatChatPrompt(*prompt);
  return 0;
}

int Import(Env* env, const std::vector<std::string>& args) {
  std::string what, path, out;
  bool force = false, dry_run = false;
  po::options_description d(
      "accelopt-eval import nkibench PATH/TO/AccelOpt/NKIBench --out DIR [--force] [--dry-run]\n"
      "Writes DIR/<problem>/{problem.json, reference.py, baseline.py} for every problem of the\n"
      "checkout's summary.json (backend nki; the numpy reference and the NKI baseline are copied)");
  d.add_options()("help,h", "this help")
      ("what", po::value(&what), "what to import: nkibench")
      ("path", po::value(&path), "the NKIBench folder of an AccelOpt checkout")
      ("out", po::value(&out), "the suite folder to write (e.g. suites/nki)")
      ("force", po::bool_switch(&force), "overwrite problem folders that exist")
      ("dry-run", po::bool_switch(&dry_run), "check everything, write nothing");
  po::positional_options_description pos;
  pos.add("what", 1).add("path", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) { std::cout << d; return 0; }
  if (what != "nkibench" || path.empty() || out.empty()) { std::cerr << d; return 2; }
  nki::ImportOptions o;
  o.nkibench_dir = path;
  o.out_dir = out;
  o.force = force;
  o.dry_run = dry_run;
  auto r = nki::ImportNkiBench(o, env);
  if (!r.ok()) {
    std::cerr << "accelopt-eval: " << r.status().message() << "\n";
    return r.status().code() == Code::kInternal ? 3 : 2;
  }
  for (const auto& p : *r) {
    std::cout << (dry_run ? "would write " : "wrote ") << p.dir << "  (" << p.problem.value("paper_shape", "")
              << ", " << p.problem.value("bound", "") << ")\n";
  }
  return 0;
}

int Doctor(Env* env, const std::vector<std::string>& args) {
  std::string what, python = "/opt/aws_neuronx_venv_pytorch/bin/python", cores = "0", generation = "trn1";
  std::string runner_dir = "/usr/share/accelopt/nki", profiler = "neuron-profile", reference_python = "/usr/bin/python3";
  po::options_description d(
      "accelopt-eval doctor nki [options]\n"
      "Checks this host for the nki backend (evaluators.nki in the daemon's config); names each missing piece and its fix");
  d.add_options()("help,h", "this help")
      ("what", po::value(&what), "nki")
      ("python", po::value(&python)->default_value(python), "the Neuron SDK's interpreter (evaluators.nki.python)")
      ("cores", po::value(&cores)->default_value(cores), "the NeuronCores to use (evaluators.nki.cores)")
      ("generation", po::value(&generation)->default_value(generation), "trn1 | trn2 | trn3")
      ("runner-dir", po::value(&runner_dir)->default_value(runner_dir), "folder of runner.py and reference_runner.py")
      ("profiler", po::value(&profiler)->default_value(profiler), "neuron-profile")
      ("reference-python", po::value(&reference_python)->default_value(reference_python),
       "a Python with numpy for the trusted reference");
  po::positional_options_description pos;
  pos.add("what", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) { std::cout << d; return 0; }
  if (what != "nki") { std::cerr << d; return 2; }
  auto c = nki::NkiConfig::FromJson({{"python", python}, {"cores", cores}, {"generation", generation},
                                     {"runner_dir", runner_dir}, {"profiler", profiler},
                                     {"reference_python", reference_python}},
                                    "doctor");
  if (!c.ok()) { std::cerr << "accelopt-eval: " << c.status().message() << "\n"; return 2; }
  auto checks = nki::RunDoctor(*c, env);
  std::cout << nki::FormatDoctor(checks);
  bool ok = true;
  for (const auto& k : checks) ok &= k.ok;
  std::cout << (ok ? "this host can evaluate NKI kernels\n" : "this host cannot evaluate NKI kernels yet\n");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const char* usage =
      "usage: accelopt-eval <command> [options]\n"
      "  calibrate            measure peak FLOP/s and bandwidth (saved in the cache dir)\n"
      "  run                  evaluate one kernel: --problem DIR --kernel FILE\n"
      "  check                cuda: static checks and nvcc only: --problem DIR --kernel FILE.cu\n"
      "  baseline SUITE_DIR   evaluate every problem's baseline.cpp\n"
      "  job                  one evaluation as a Slurm job: --request FILE --result FILE\n"
      "  prompts              print the prompts a role gets: --problem DIR --role planner|executor|summarizer\n"
      "  import nkibench PATH --out DIR   NKIBench from an AccelOpt checkout as a suite of nki problems\n"
      "  doctor nki           check this host for the nki (Trainium) backend\n"
      "run 'accelopt-eval <command> --help' for options\n";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") { std::cerr << usage; return args.empty() ? 2 : 0; }
  std::string cmd = args[0];
  args.erase(args.begin());
  Env* env = Env::Default();  // the one place accelopt-eval's Env is chosen
  try {
    if (cmd == "calibrate") return Calibrate(env, args);
    if (cmd == "run") return RunOne(env, args);
    if (cmd == "check") return Check(env, args);
    if (cmd == "baseline") return Baseline(env, args);
    if (cmd == "job") return Job(env, args);
    if (cmd == "prompts") return Prompts(env, args);
    if (cmd == "import") return Import(env, args);
    if (cmd == "doctor") return Doctor(env, args);
  } catch (const po::error& e) {
    std::cerr << "accelopt-eval: " << e.what() << "\n";
    return 2;
  }
  std::cerr << "accelopt-eval: unknown command '" << cmd << "'\n" << usage;
  return 2;
}
