// The cuda backend's checks that run without a GPU: the nvcc lookup, the
// static checks on the corpus under tests/evaluators/cuda/, and (when the
// build found nvcc: ACCELOPT_TEST_NVCC) the compilation of every suites/cuda
// baseline and of the honest and forbidden objects. Without nvcc those cases
// are skipped and say so (Boost.Test reports them as skipped, with the
// reason) — on Debian without a CUDA toolkit that is the expected state, not
// a pass. Nothing here runs a kernel: that needs a GPU (scripts/gpu-check).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/env.hpp"
#include "evaluators/judge/cpp_rules.hpp"
#include "evaluators/judge/toolchain.hpp"
#include "evaluators/gpu/calibration.hpp"
#include "evaluators/cuda/candidate_check.hpp"
#include "evaluators/cuda/static_check.hpp"
#include "evaluators/cuda/toolchain.hpp"
#include "evaluators/gpu/nvcc.hpp"
#include "evaluators/judge/object_check.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/suites.hpp"
#include "workflows/prompt_backend.hpp"
#include "workflows/prompts_cuda.hpp"

using namespace accelopt;
namespace fs = std::filesystem;
namespace cuda = accelopt::eval::cuda;
namespace gpu = accelopt::eval::gpu;

namespace {

std::string Src() { return ACCELOPT_SOURCE_DIR; }
std::string Corpus() { return Src() + "/tests/evaluators/cuda"; }
const std::string kTestNvcc = ACCELOPT_TEST_NVCC;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Files(const std::string& dir, const std::string& ext = ".cu") {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// "// expect: <text>" on the first line.
std::string Expected(const std::string& text) {
  const std::string tag = "// expect: ";
  BOOST_REQUIRE_MESSAGE(text.rfind(tag, 0) == 0, "a corpus file starts with '// expect: <reason>'");
  return text.substr(tag.size(), text.find('\n') - tag.size());
}

// Environment variables as a test wants them; the rest from the real Env.
class VarsEnv : public EnvWrapper {
 public:
  VarsEnv(std::map<std::string, std::string> vars, std::set<std::string> files)
      : EnvWrapper(Env::Default()), vars_(std::move(vars)), files_(std::move(files)) {}
  std::optional<std::string> GetEnvVar(const std::string& n) override {
    auto it = vars_.find(n);
    if (it == vars_.end()) return std::nullopt;
    return it->second;
  }
  bool IsFile(const std::string& p) override { return files_.count(p) > 0; }

 private:
  std::map<std::string, std::string> vars_;
  std::set<std::string> files_;
};

struct NvccPresent {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    boost::test_tools::assertion_result r(!kTestNvcc.empty());
    r.message() << "SKIPPED: no nvcc in this build (configure found none, or -DACCELOPT_CUDA=OFF): "
                   "the cuda backend's compile checks cannot run on this machine";
    return r;
  }
};

// Compiles `sources` (one translation unit: a file that #includes them) as a
// candidate is compiled, into `so`. Returns the compiler output on failure.
std::string Compile(const std::vector<std::string>& sources, const std::string& so) {
  const std::string tu = so + ".cu";
  {
    std::ofstream out(tu);
    for (const auto& s : sources) out << "#include \"" << s << "\"\n";
  }
  std::vector<std::string> args = cuda::KernelFlags("sm_90");
  args.insert(args.end(), {"-o", so, tu});
  auto run = eval::judge::RunCompiler(Env::Default(), kTestNvcc, args, 240);
  BOOST_REQUIRE(run.ok());
  return run->ok ? "" : run->describe + "\n" + run->output;
}

std::string WorkDir(const std::string& name) {
  fs::path d = fs::path(ACCELOPT_BINARY_DIR) / "cuda-test" / name;
  fs::remove_all(d);  // nothing cached across runs
  fs::create_directories(d);
  return d.string();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cuda_toolchain)

BOOST_AUTO_TEST_CASE(nvcc_lookup_order_and_absence) {
  const std::string fake = "/opt/test-cuda/bin/nvcc";
  {  // ACCELOPT_NVCC set but empty: hidden, even where one is installed.
    VarsEnv env({{"ACCELOPT_NVCC", ""}, {"PATH", "/opt/test-cuda/bin"}}, {fake, "/usr/local/cuda/bin/nvcc"});
    auto r = gpu::FindNvcc(&env);
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.status().code() == Code::kUnavailable);
    BOOST_TEST(r.status().message().find("the cuda backend is not available on this machine: no nvcc found") == 0);
    BOOST_TEST(r.status().message().find("ACCELOPT_NVCC (set, empty") != std::string::npos);
  }
  {  // CUDA_HOME first, then PATH, then the default prefix.
    VarsEnv env({{"CUDA_HOME", "/opt/test-cuda"}, {"PATH", "/usr/bin:/bin"}}, {fake, "/usr/local/cuda/bin/nvcc"});
    BOOST_TEST(gpu::FindNvcc(&env).value() == fake);
  }
  {
    VarsEnv env({{"PATH", "/usr/bin:/opt/test-cuda/bin"}}, {fake, "/usr/local/cuda/bin/nvcc"});
    BOOST_TEST(gpu::FindNvcc(&env).value() == fake);
  }
  {
    VarsEnv env({{"PATH", "/usr/bin"}}, {"/usr/local/cuda/bin/nvcc"});
    BOOST_TEST(gpu::FindNvcc(&env).value() == "/usr/local/cuda/bin/nvcc");
  }
  {  // Nothing anywhere: the message lists what was searched.
    VarsEnv env({{"PATH", "/usr/bin:/bin"}, {"CUDA_HOME", "/nowhere"}}, {});
    auto r = gpu::FindNvcc(&env);
    BOOST_REQUIRE(!r.ok());
    const std::string m = r.status().message();
    for (const char* s : {"$CUDA_HOME: /nowhere/bin/nvcc", "$PATH: /usr/bin/nvcc",
                          "default prefix: /usr/local/cuda/bin/nvcc", "install the CUDA toolkit"})
      BOOST_TEST(m.find(s) != std::string::npos, m << " names " << s);
  }
  BOOST_TEST(cuda::ArchFlag(9, 0) == "sm_90");
  const auto flags = cuda::KernelFlags("sm_90");
  BOOST_TEST((std::find(flags.begin(), flags.end(), "-arch=sm_90") != flags.end()));
  BOOST_TEST((std::find(flags.begin(), flags.end(), "--use_fast_math") == flags.end()));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(cuda_static_check)

BOOST_AUTO_TEST_CASE(forbidden_sources_are_refused_with_their_reason) {
  const auto files = Files(Corpus() + "/forbidden");
  BOOST_REQUIRE_GE(files.size(), 15u);
  for (const auto& f : files) {
    const std::string text = ReadText(f);
    Status st = cuda::CheckSource(text);
    BOOST_TEST_CONTEXT(fs::path(f).filename().string()) {
      BOOST_TEST(!st.ok());
      BOOST_TEST(st.code() == Code::kPermissionDenied);
      BOOST_TEST(st.message().find(Expected(text)) != std::string::npos, st.message() << " ~ " << Expected(text));
    }
  }
}

BOOST_AUTO_TEST_CASE(honest_kernels_baselines_and_runtime_cheats_pass_the_source_checks) {
  std::vector<std::string> files = Files(Corpus() + "/honest");
  for (const auto& f : Files(Corpus() + "/gpu_cheats")) files.push_back(f);         // only a GPU run can catch these
  for (const auto& f : Files(Corpus() + "/forbidden_objects")) files.push_back(f);  // caught by their symbols
  auto dirs = eval::ListProblemDirs(Src() + "/suites/cuda", Env::Default());
  BOOST_REQUIRE(dirs.ok());
  for (const auto& d : *dirs) files.push_back(d + "/baseline.cu");
  BOOST_REQUIRE_GE(files.size(), 14u + 2 + 4 + 4);
  for (const auto& f : files) {
    Status st = cuda::CheckSource(ReadText(f));
    BOOST_TEST(st.ok(), f << ": " << st.message());
  }
}

BOOST_AUTO_TEST_CASE(specific_source_rules) {
  auto refused = [](const std::string& src, const std::string& why) {
    Status st = cuda::CheckSource(src);
    BOOST_TEST(!st.ok(), src);
    BOOST_TEST(st.message().find(why) != std::string::npos, st.message() << " ~ " << why);
  };
  // Comments and strings are not code.
  BOOST_TEST(cuda::CheckSource("// __half and asm and clock64 in a comment\nconst char* s = \"__half asm\";\n").ok());
  BOOST_TEST(
      cuda::CheckSource("#include <mma.h>\nusing namespace nvcuda;\n"
                        "__global__ void k(){ wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a; }\n")
          .ok());
  refused(
      "#include <mma.h>\n__global__ void k(){ nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, signed char, "
      "nvcuda::wmma::row_major> a; }\n",
      "must be double");
  refused("__global__ void k(float* o){ o[0] = __hadd(o[0], o[1]); }\n", "reduced precision ('__hadd')");
  refused("__global__ void k(float* o){ __nanosleep(100); }\n", "'__nanosleep' reads a clock or sleeps");
  refused("#include <cutlass/cutlass.h>\n", "CUTLASS");
  refused("#include <cute/tensor.hpp>\n", "CuTe");
  refused("#include <cusparse.h>\n", "a library that does the work");
  refused("#include \"kernel.cuh\"\n", "one file");
  refused("#include <../x.h>\n", "is not allowed");
}

BOOST_AUTO_TEST_CASE(symbol_rules) {
  // What nvcc's generated code and the baselines need.
  BOOST_TEST(cuda::CheckSymbols({"__cudaRegisterFatBinary@libcudart.so.13", "__cudaLaunchKernel@libcudart.so.13",
                                 "__cudaPushCallConfiguration", "__cudaPopCallConfiguration", "__cudaRegisterFunction",
                                 "__cudaGetKernel", "__cudaUnregisterFatBinary", "__cudaRegisterFatBinaryEnd",
                                 "cudaMalloc", "cudaFree", "cudaStreamCreateWithFlags", "cudaStreamSynchronize",
                                 "cudaEventRecord", "cudaStreamWaitEvent", "cudaFuncSetAttribute", "expf", "_Znwm",
                                 "__cxa_atexit@GLIBC_2.2.5", "__gxx_personality_v0"})
                 .ok());
  auto refused = [](const std::string& sym, const std::string& why) {
    Status st = cuda::CheckSymbols({"cudaMalloc", sym});
    BOOST_TEST(!st.ok(), sym);
    BOOST_TEST(st.message().find("symbol '" + sym + "' is not allowed (" + why) != std::string::npos,
               st.message() << " ~ " << why);
  };
  refused("cudaMemcpy", "host<->device copies");
  refused("cudaMemcpyAsync", "host<->device copies");
  refused("cudaMemcpyFromSymbol", "host<->device copies");
  refused("cudaEventElapsedTime", "timing with events");
  refused("cudaMallocManaged", "host-visible memory");
  refused("cudaHostAlloc", "host-visible memory");
  refused("cudaSetDevice", "context and device control");
  refused("cudaDeviceReset", "context and device control");
  refused("cudaLaunchHostFunc", "host callbacks");
  refused("cudaGraphLaunch", "CUDA graphs");
  refused("cuLaunchKernel", "the driver API");
  refused("cublasSgemm_v2", "a library that does the work");
  refused("cudnnConvolutionForward", "a library that does the work");
  refused("pthread_create", "host threads");
  refused("_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE", "host threads");
  refused("GOMP_parallel", "host threads");
  refused("fopen", "file access");
  refused("socket", "network access");
  refused("fork", "process control");
  refused("clock_gettime", "clocks and sleeping");
  refused("dlopen", "dynamic loading");
  refused("getenv", "output or environment");
  refused("cudaSomethingNew", "a CUDA runtime call not on the allow-list");
  BOOST_TEST(cuda::CheckSymbols({"cudaMemcpyToSymbol"}).ok());  // host constants into __constant__ memory
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(cuda_suite)

BOOST_AUTO_TEST_CASE(every_problem_loads_with_a_cu_baseline) {
  auto dirs = eval::ListProblemDirs(Src() + "/suites/cuda", Env::Default());
  BOOST_REQUIRE(dirs.ok());
  std::set<std::string> cpu_names, cuda_names;
  auto cpu_dirs = eval::ListProblemDirs(Src() + "/suites/cpu", Env::Default());
  BOOST_REQUIRE(cpu_dirs.ok());
  for (const auto& d : *cpu_dirs) cpu_names.insert(fs::path(d).filename().string());
  for (const auto& d : *dirs) {
    auto p = eval::LoadProblem(d, Env::Default());
    BOOST_REQUIRE_MESSAGE(p.ok(), d << ": " << p.status().message());
    cuda_names.insert(p->name);
    BOOST_TEST(p->backend == "cuda");
    BOOST_TEST(fs::path(p->baseline_path).filename() == "baseline.cu");
    // Same kernel as the cpu suite's, same signature; GPU-sized.
    auto cpu = eval::LoadProblem(Src() + "/suites/cpu/" + p->name, Env::Default());
    BOOST_REQUIRE(cpu.ok());
    BOOST_TEST(p->function == cpu->function);
    BOOST_TEST(p->params.size() == cpu->params.size());
    for (size_t i = 0; i < p->params.size() && i < cpu->params.size(); ++i) {
      BOOST_TEST(p->params[i].name == cpu->params[i].name);
      BOOST_TEST(static_cast<int>(p->params[i].kind) == static_cast<int>(cpu->params[i].kind));
    }
    BOOST_TEST(p->flops >= cpu->flops, p->name);
    BOOST_TEST(ReadText(p->reference_path) == ReadText(cpu->reference_path),
               p->name << ": the trusted reference is the cpu suite's");
    auto src = eval::LoadProblemSource(d, "suites/cuda/" + p->name, Env::Default());
    BOOST_REQUIRE(src.ok());
    BOOST_TEST(src->baseline.find("__global__") != std::string::npos, p->name << ": the baseline is a CUDA kernel");
  }
  BOOST_TEST(cuda_names == cpu_names);
}

BOOST_AUTO_TEST_CASE(every_baseline_compiles_with_nvcc, *boost::unit_test::precondition(NvccPresent())) {
  // One translation unit with all 14 (their kernels have distinct names):
  // one nvcc run instead of 14, and the object must define every function.
  auto dirs = eval::ListProblemDirs(Src() + "/suites/cuda", Env::Default());
  BOOST_REQUIRE(dirs.ok());
  std::vector<std::string> sources;
  for (const auto& d : *dirs) sources.push_back(d + "/baseline.cu");
  const std::string so = WorkDir("baselines") + "/baselines.so";
  const std::string err = Compile(sources, so);
  BOOST_REQUIRE_MESSAGE(err.empty(), err);
  auto undefined = eval::judge::UndefinedSymbols(so, Env::Default());
  BOOST_REQUIRE(undefined.ok());
  Status st = cuda::CheckSymbols(*undefined);
  BOOST_TEST(st.ok(), st.message());
  ProcessSpec nm;
  nm.argv = {"nm", "-D", "--defined-only", so};
  auto r = Env::Default()->RunProcess(nm);
  BOOST_REQUIRE(r.ok());
  for (const auto& d : *dirs) {
    auto p = eval::LoadProblem(d, Env::Default());
    BOOST_REQUIRE(p.ok());
    BOOST_TEST(r->stdout_data.find(" T " + p->function + "\n") != std::string::npos, p->function << " is defined");
  }
}

BOOST_AUTO_TEST_CASE(honest_kernels_compile_and_pass_the_symbol_check, *boost::unit_test::precondition(NvccPresent())) {
  const std::string so = WorkDir("honest") + "/honest.so";
  const std::string err = Compile(Files(Corpus() + "/honest"), so);
  BOOST_REQUIRE_MESSAGE(err.empty(), err);
  auto undefined = eval::judge::UndefinedSymbols(so, Env::Default());
  BOOST_REQUIRE(undefined.ok());
  Status st = cuda::CheckSymbols(*undefined);
  BOOST_TEST(st.ok(), st.message());
}

BOOST_AUTO_TEST_CASE(forbidden_objects_are_refused_by_their_symbols, *boost::unit_test::precondition(NvccPresent())) {
  const std::string dir = WorkDir("forbidden_objects");
  const auto files = Files(Corpus() + "/forbidden_objects");
  BOOST_REQUIRE_GE(files.size(), 4u);
  for (const auto& f : files) {
    const std::string text = ReadText(f);
    BOOST_TEST_CONTEXT(fs::path(f).filename().string()) {
      BOOST_TEST(cuda::CheckSource(text).ok());  // the source looks fine ...
      const std::string so = dir + "/" + fs::path(f).stem().string() + ".so";
      const std::string err = Compile({f}, so);
      BOOST_REQUIRE_MESSAGE(err.empty(), err);
      auto undefined = eval::judge::UndefinedSymbols(so, Env::Default());
      BOOST_REQUIRE(undefined.ok());
      Status st = cuda::CheckSymbols(*undefined);  // ... the object does not
      BOOST_TEST(!st.ok());
      BOOST_TEST(st.message().find(Expected(text)) != std::string::npos, st.message() << " ~ " << Expected(text));
    }
  }
}

// The candidate check (nvcc under the compiler's sandbox, then the object's
// checks) refuses an object that does not define the problem's function, as
// the cpu backend does, before any runner would load it.
BOOST_AUTO_TEST_CASE(a_candidate_without_the_problems_function_is_refused,
                     *boost::unit_test::precondition(NvccPresent())) {
  auto nvcc = gpu::FindNvcc(Env::Default());
  BOOST_REQUIRE(nvcc.ok());
  const std::string baseline = ReadText(Src() + "/suites/cuda/silu/baseline.cu");
  std::string renamed = baseline;
  const std::string decl = "extern \"C\" void silu(";
  BOOST_REQUIRE(renamed.find(decl) != std::string::npos);
  renamed.replace(renamed.find(decl), decl.size(), "extern \"C\" void silu_v2(");
  struct Case {
    std::string name, source;
    eval::EvalStatus want;
  };
  for (const Case& c : {Case{"baseline", baseline, eval::EvalStatus::kOk},
                        Case{"renamed", renamed, eval::EvalStatus::kStaticCheckFailed}}) {
    const std::string& name = c.name;
    const std::string& source = c.source;
    const eval::EvalStatus want = c.want;
    BOOST_TEST_CONTEXT(name) {
      cuda::CandidateCheckOptions o;
      o.env = Env::Default();
      o.nvcc = *nvcc;
      o.work_dir = WorkDir("candidate-" + name);
      o.function = "silu";
      eval::EvalResult r = cuda::CheckCandidate(source, o);
      BOOST_TEST((r.status == want), eval::EvalStatusName(r.status) << ": " << r.reason);
      if (want != eval::EvalStatus::kOk) BOOST_TEST(r.reason.find("silu") != std::string::npos, r.reason);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(cuda_prompts)

BOOST_AUTO_TEST_CASE(the_prompt_states_the_real_compile_command_and_rules) {
  const auto& b = workflows::BackendPromptsFor("cuda");
  BOOST_TEST(b.name == "cuda");
  // Every flag the candidate is compiled with is in the command the agents see.
  std::string flags;
  for (const auto& f : cuda::KernelFlags("sm_90")) flags += (flags.empty() ? "" : " ") + f;
  BOOST_TEST(b.compile == "nvcc " + flags);
  BOOST_TEST(b.intro.find(b.compile) != std::string::npos);
  for (const char* rule : {"no half", "no TF32", "double fragments", "no cuBLAS", "CUTLASS", "inline PTX", "cudaMemcpy",
                           "cudaEventElapsedTime"})
    BOOST_TEST(b.rules.find(rule) != std::string::npos, rule);
  for (const char* pit : {"Coalescing", "bank conflicts", "Occupancy", "__syncthreads", "Tails", "Streams"})
    BOOST_TEST(b.pitfalls.find(pit) != std::string::npos, pit);
  json problem = {{"tolerance", 2e-5}, {"params", json::array()}, {"adversarial", json::array()}};
  BOOST_TEST(b.correctness(problem).find("NaN-filled before every call") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_facts_sheet_shows_the_gpu_and_the_calibrated_peaks) {
  json cal = {{"gpu",
               {{"name", "NVIDIA H200"},
                {"cc_major", 9},
                {"cc_minor", 0},
                {"sm_count", 132},
                {"warp_size", 32},
                {"max_threads_per_block", 1024},
                {"max_threads_per_sm", 2048},
                {"registers_per_sm", 65536},
                {"registers_per_block", 65536},
                {"shared_memory_per_sm_bytes", 233472},
                {"shared_memory_per_block_bytes", 49152},
                {"shared_memory_per_block_optin_bytes", 232448},
                {"l2_bytes", 52428800},
                {"memory_bytes", 150754820096.0},
                {"sm_clock_mhz", 1980},
                {"memory_clock_mhz", 3201},
                {"driver", "570.86"},
                {"runtime", "13.0"}}},
              {"peak_gflops", 61000.0},
              {"datasheet_peak_gflops", 66900.0},
              {"bandwidth_gbps", 4100.0},
              {"datasheet_bandwidth_gbps", 4800.0}};
  const std::string t = workflows::CudaHardwareProse(cal);
  for (const char* s : {"NVIDIA H200 (compute capability 9.0)", "SMs): 132", "warp size: 32 threads",
                        "shared memory per SM: 228 KiB", "L2 cache: 50 MiB", "registers per SM / per block: 65536",
                        "61000 GFLOP/s (data sheet: 66900)", "4100 GB/s (data sheet: 4800)"})
    BOOST_TEST(t.find(s) != std::string::npos, t << " shows " << s);
  BOOST_TEST(workflows::CudaHardwareProse(json::object()) == "(none recorded)\n");
  BOOST_TEST(workflows::CudaHardwareProse(json{{"gpu", {{"name", "X"}}}}).find("SMs): (not recorded)") !=
             std::string::npos);
  // A campaign's facts: the cpu calibration's keys with the GPU's under
  // "cuda". The CPU's peak is never shown as the GPU's (it was, when the
  // daemon passed the cpu calibration alone: "calibrated fp32 FMA peak:
  // <the CPU's GFLOP/s>").
  const json cpu_only = {{"peak_gflops", 123.0}, {"hardware", {{"model", "a CPU"}}}};
  BOOST_TEST(workflows::CudaHardwareProse(cpu_only) == "(none recorded)\n");
  json campaign = cpu_only;
  campaign["cuda"] = cal;
  const std::string c = workflows::CudaHardwareProse(campaign);
  BOOST_TEST(c.find("61000 GFLOP/s") != std::string::npos, c);
  BOOST_TEST(c.find("123") == std::string::npos, c);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(cuda_calibration)

std::string Line(const std::string& name, const std::string& fma, const std::string& copy) {
  return "noise\nACCELOPT-CUDA-CALIBRATION {\"gpu\": {\"name\": \"" + name +
         "\", \"sm_count\": 132, \"sm_clock_mhz\": 1980, \"memory_clock_mhz\": 3201, \"memory_bytes\": 150754820096, "
         "\"driver\": \"570.86\"}, \"fma_gflops\": [" +
         fma + "], \"copy_gbps\": [" + copy + "]}\n";
}

BOOST_AUTO_TEST_CASE(best_measurement_bounded_by_the_data_sheet) {
  auto c = gpu::ParseCalibrationOutput(Line("NVIDIA H200", "58000.5, 61000, 60000", "4000, 4100.5"));
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().message());
  BOOST_TEST(c->peak_gflops == 61000);
  BOOST_TEST(c->bandwidth_gbps == 4100.5);
  BOOST_REQUIRE(c->datasheet.has_value());
  BOOST_TEST(c->datasheet->bandwidth_gbps == 4800);
  BOOST_TEST(c->fingerprint == "NVIDIA H200 | 132 SMs | 1980/3201 MHz | 150754820096 bytes | driver 570.86");
  const json j = c->ToJson();
  BOOST_TEST(j["datasheet_peak_gflops"].get<double>() == 66900);
  // What the agents would read (prompts_cuda.hpp) comes from this JSON.
  BOOST_TEST(workflows::CudaHardwareProse(j).find("4100.5 GB/s (data sheet: 4800)") != std::string::npos);

  auto fast = gpu::ParseCalibrationOutput(Line("NVIDIA H100 80GB HBM3", "60000", "3600"));  // 3.35 TB/s sheet
  BOOST_REQUIRE(!fast.ok());
  BOOST_TEST(fast.status().code() == Code::kFailedPrecondition);
  BOOST_TEST(fast.status().message().find("measured bandwidth above the data sheet (3600 > 3350 GB/s") == 0);
  auto unknown = gpu::ParseCalibrationOutput(Line("Some Future GPU", "1e6", "1e5"));
  BOOST_REQUIRE(unknown.ok());  // no data sheet known: nothing to bound with (recorded as absent)
  BOOST_TEST(!unknown->datasheet.has_value());
  BOOST_TEST(!unknown->ToJson().contains("datasheet_peak_gflops"));
}

BOOST_AUTO_TEST_CASE(malformed_output_is_refused) {
  BOOST_TEST(gpu::ParseCalibrationOutput("calibration error: no device\n").status().code() == Code::kInvalidArgument);
  BOOST_TEST(!gpu::ParseCalibrationOutput(Line("NVIDIA H200", "", "4000")).ok());
  BOOST_TEST(!gpu::ParseCalibrationOutput(Line("NVIDIA H200", "-1", "4000")).ok());
  BOOST_TEST(!gpu::ParseCalibrationOutput("ACCELOPT-CUDA-CALIBRATION {\"fma_gflops\": [1]}").ok());
  BOOST_TEST(gpu::DatasheetFor("NVIDIA A100-SXM4-40GB")->bandwidth_gbps == 1555);
  BOOST_TEST(gpu::DatasheetFor("NVIDIA H100 PCIe")->fp32_gflops == 51200);
}

BOOST_AUTO_TEST_CASE(the_program_compiles_and_without_a_gpu_says_why, *boost::unit_test::precondition(NvccPresent())) {
  auto r = gpu::CalibrateGpu(Env::Default(), kTestNvcc, WorkDir("calibrate"));
  if (r.ok()) {  // a machine with a GPU: the measurement must look like one
    BOOST_TEST(r->peak_gflops > 100);
    BOOST_TEST(r->bandwidth_gbps > 10);
    return;
  }
  BOOST_TEST(r.status().code() == Code::kUnavailable, r.status().message());
  BOOST_TEST(r.status().message().find("no usable GPU for the cuda calibration") == 0, r.status().message());
}

BOOST_AUTO_TEST_SUITE_END()
