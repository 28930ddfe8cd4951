// The cuda judge's decisions, without a GPU: the rule that bounds a
// device-timed runner's claims by the judge's clock (device_clock.hpp), and
// the judge itself (judge_main.cpp with `clock device`) driving the real
// cuda runner loop (runner_loop.hpp) on the CPU-only test double
// (tests/fakes/cuda/fake_runner_main.cpp). The fake's "device time" is a
// host-clock stand-in: these tests check verdicts, and no number they see is
// a GPU measurement.
//
// The judge, the fake runner and the test kernel are compiled with g++ into
// a cache in the build tree (ACCELOPT_TEST_CACHE_DIR), so only the first run
// pays for them (~30 s on 2 cores); later runs take a few seconds (the test kernel sleeps 20 ms a call).
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "base/env.hpp"
#include "base/json.hpp"
#include "evaluators/judge/harness/device_clock.hpp"
#include "evaluators/judge/harness_builder.hpp"
#include "evaluators/cuda/cuda_backend.hpp"
#include "evaluators/problem.hpp"
#include "tests/evaluators/judge_run.hpp"

using namespace accelopt;
namespace dc = accelopt_device_clock;

namespace {

std::string CudaJudgeSrc() { return ACCELOPT_SOURCE_DIR; }

std::string CudaJudgeReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A silu kernel that also sleeps for 20 ms, leaving the host CPU idle like a
// GPU kernel does: each call is long next to the runner's handshake and to
// the judge's own scheduling delays on a busy 2-core host (measured: a few
// ms at load 7), so a hidden part of it is plain to see and an honest claim
// is not mistaken for one.
const char kSlowSilu[] = R"(#include <cmath>
#include <cstdint>
#include <ctime>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
  timespec d{0, 20000000};
  while (nanosleep(&d, &d) != 0) {}
}
)";

struct CudaJudgeRig {
  Env* env = Env::Default();
  std::string cache = ACCELOPT_TEST_CACHE_DIR;
  eval::Problem problem;
  eval::judge::HarnessCache::Built built;
  std::string kernel_so;
  std::string fake_runner;  // the fake's base name; the mode is a suffix

  // Compiles `args` with g++ unless `out` exists (the name carries a hash of the inputs).
  void Compile(const std::vector<std::string>& args, const std::string& out) {
    if (env->Exists(out)) return;
    ProcessSpec spec;
    spec.argv = {"g++"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.insert(spec.argv.end(), {"-o", out + ".tmp"});
    spec.timeout = std::chrono::seconds(240);
    auto r = env->RunProcess(spec);
    BOOST_REQUIRE(r.ok());
    BOOST_REQUIRE_MESSAGE(r->Succeeded(), "g++ failed: " + r->stderr_data.substr(0, 2000));
    BOOST_REQUIRE(env->RenameFile(out + ".tmp", out).ok());
  }

  CudaJudgeRig() {
    BOOST_REQUIRE(env->CreateDirs(cache).ok());
    // suites/cpu/silu at a small shape (64 x 512): its copies are cheap, so
    // the kernel's sleep dominates every call.
    const std::string dir = cache + "/problems/silu";
    BOOST_REQUIRE(env->CreateDirs(dir).ok());
    auto spec = ParseJson(CudaJudgeReadText(CudaJudgeSrc() + "/suites/cpu/silu/problem.json"));
    BOOST_REQUIRE(spec.ok());
    (*spec)["dims"] = {{"M", 64}, {"N", 512}};
    (*spec)["flops"] = 3 * 64 * 512;
    (*spec)["bytes"] = 4 * 2 * 64 * 512;
    BOOST_REQUIRE(env->WriteFileAtomic(dir + "/problem.json", spec->dump(2)).ok());
    for (const char* f : {"/reference.cpp", "/baseline.cpp"})
      BOOST_REQUIRE(env->WriteFileAtomic(dir + f, CudaJudgeReadText(CudaJudgeSrc() + "/suites/cpu/silu" + f)).ok());
    auto p = eval::LoadProblem(dir, env);
    BOOST_REQUIRE_MESSAGE(p.ok(), p.status().ToString());
    problem = *p;
    eval::judge::HarnessCache harnesses(cache, "g++", env);
    auto b = harnesses.Get(problem, nullptr);
    BOOST_REQUIRE_MESSAGE(b.ok(), b.status().ToString());
    built = *b;
    const std::string kernel_src = cache + "/slow_silu.cpp";
    BOOST_REQUIRE(env->WriteFileAtomic(kernel_src, kSlowSilu).ok());
    kernel_so = cache + "/slow_silu-" + std::to_string(std::hash<std::string>{}(kSlowSilu)) + ".so";
    Compile({"-O2", "-fPIC", "-shared", kernel_src}, kernel_so);
    // The fake runner: its main, the real runner loop, the problem's glue.
    const std::string glue = eval::judge::RunnerGlueSource(problem);
    const std::string glue_path = cache + "/fake_runner_glue.cpp";
    BOOST_REQUIRE(env->WriteFileAtomic(glue_path, glue).ok());
    std::string key = glue;
    for (const char* f : {"/tests/fakes/cuda/fake_runner_main.cpp", "/tests/fakes/cuda/fake_device.hpp",
                          "/evaluators/cuda/harness/runner_loop.hpp", "/evaluators/cuda/harness/runner_call.hpp",
                          "/evaluators/cuda/harness/device.hpp", "/evaluators/judge/harness/wire.hpp"})
      key += CudaJudgeReadText(CudaJudgeSrc() + f);
    const std::string exe = cache + "/fake_runner-" + std::to_string(std::hash<std::string>{}(key));
    Compile({"-std=c++17", "-O1", "-I", CudaJudgeSrc(), CudaJudgeSrc() + "/tests/fakes/cuda/fake_runner_main.cpp",
             glue_path, "-ldl"},
            exe);
    for (const char* mode : {"honest", "under", "over"}) {  // one copy per mode (the judge passes no mode)
      const std::string named = exe + "_" + mode;
      if (env->Exists(named)) continue;
      auto bytes = env->ReadFile(exe);
      BOOST_REQUIRE(bytes.ok());
      BOOST_REQUIRE(env->WriteFileAtomic(named, *bytes).ok());
      BOOST_REQUIRE(env->SetPermissions(named, 0755).ok());
    }
    fake_runner = exe;
  }

  // Runs the judge with `clock device` on the fake runner in `mode`, with
  // the job lines `extra` (the runner's GPU, as CudaBackend names it); the
  // verdict's JSON.
  json Judge(const std::string& mode, const std::string& extra = "runner_env CUDA_VISIBLE_DEVICES=0\n") {
    eval::EvalSettings s;
    s.seeds = {0, 21, 42};
    s.adversarial = false;
    s.min_time_s = 0.02;
    s.min_samples = 5;
    s.max_samples = 20;
    s.min_rounds = 1;
    s.max_rounds = 1;
    eval::judge::HarnessCache harnesses(cache, "g++", env);
    auto secret = harnesses.Secret();
    BOOST_REQUIRE(secret.ok());
    auto cases = eval::judge::MakeCases(problem, s, *secret, [this] { return env->RandomU64(); });
    // Each judge run's timing cases are its own (case_stock.hpp): a fresh folder.
    (void)env->RemoveAll(cache + "/pool");
    auto refs = harnesses.References(problem, built, cases, cache + "/pool", nullptr);
    BOOST_REQUIRE_MESSAGE(refs.ok(), refs.status().ToString());
    return testing::JudgeVerdict(
        env, built.judge,
        eval::judge::JobText(problem, "judge", kernel_so, fake_runner + "_" + mode, cases, *refs, s) +
            "clock device\nnull_calls 40\n" + extra,
        mode);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(cuda_judge)

// The rule alone: a claim is accepted only between the two bounds.
BOOST_AUTO_TEST_CASE(device_claim_bounds) {
  // Handshake: 50 us minimum, 60 us median.
  const double mn = 50e-6, med = 60e-6;
  auto ok = dc::CheckDeviceClaim(1e-3, 1.1e-3, 1, mn, med);  // 1 ms claimed in a 1.1 ms trip
  BOOST_TEST(ok.failure.empty());
  BOOST_TEST(ok.sample_s == 1e-3);
  auto batch = dc::CheckDeviceClaim(4e-3, 4.3e-3, 4, mn, med);
  BOOST_TEST(batch.failure.empty());
  BOOST_TEST(batch.sample_s == 1e-3);
  // A claim is bounded by its own round trip, not by that trip minus the
  // handshake minimum measured before load: a later trip's fixed part can be
  // shorter than that minimum, and this honest claim (20232.9 us in a trip
  // of 20242.9 us, with a 50 us minimum) was refused before round 3.
  BOOST_TEST(dc::CheckDeviceClaim(20232.9e-6, 20242.9e-6, 1, mn, med).failure.empty());
  BOOST_TEST(dc::CheckDeviceClaim(1.1e-3, 1.1e-3, 1, mn, med).failure.empty());  // the whole trip: possible
  // More than the round trip allows: impossible, a protocol failure.
  auto over = dc::CheckDeviceClaim(1.11e-3, 1.1e-3, 1, mn, med);
  BOOST_TEST(over.failure == "protocol");
  BOOST_TEST(over.message.find("must fit inside the judge's clock") != std::string::npos);
  // Far less than the round trip: time hidden from the judge. One such
  // trip is accepted (the judge may have been descheduled), but a median
  // of them fails the evaluation.
  auto under = dc::CheckDeviceClaim(10e-6, 20e-3, 1, mn, med);
  BOOST_TEST(under.failure.empty());
  BOOST_TEST(under.unexplained_ratio > 1);
  BOOST_TEST(ok.unexplained_ratio < 1);
  BOOST_TEST(
      dc::CheckUnexplained({ok.unexplained_ratio, under.unexplained_ratio, ok.unexplained_ratio}).failure.empty());
  auto lied = dc::CheckUnexplained({under.unexplained_ratio, ok.unexplained_ratio, under.unexplained_ratio});
  BOOST_TEST(lied.failure == "device_time");
  BOOST_TEST(lied.message.find("unaccounted for") != std::string::npos);
  BOOST_TEST(dc::CheckUnexplained({}).failure.empty());
  // Half of a long round trip is allowed for the host's scheduling noise,
  // and at least 5 ms.
  BOOST_TEST(dc::CheckDeviceClaim(30e-3 - 14e-3, 30e-3, 2, mn, med).unexplained_ratio < 1);
  BOOST_TEST(dc::CheckDeviceClaim(6e-3 - 4.5e-3, 6e-3, 1, mn, med).unexplained_ratio < 1);
  BOOST_TEST(dc::CheckDeviceClaim(30e-3 - 20e-3, 30e-3, 1, mn, med).unexplained_ratio > 1);
  // Zero, negative or not a number: no claim at all.
  for (double bad : {0.0, -1e-3, std::nan("")})
    BOOST_TEST(dc::CheckDeviceClaim(bad, 1e-3, 1, mn, med).failure == "protocol");
  // The lower bound scales with the batch (each call has its own copies).
  const double wall = 8 * (med + 100e-6);
  BOOST_TEST(dc::CheckDeviceClaim(8 * 100e-6, wall, 8, mn, med).unexplained_ratio < 1);
  BOOST_TEST(dc::CheckDeviceClaim(8 * 10e-6, 8 * (1.5 * med + 5e-3), 8, mn, med).unexplained_ratio > 1);
}

// The judge with the real runner loop on the fake device: an honest claim
// passes and becomes the samples; a runner that under-reports is caught by
// the judge's own clock; one that claims more than the round trip is refused.
BOOST_AUTO_TEST_CASE(judge_bounds_the_runner_claims) {
  CudaJudgeRig rig;
  const json honest = rig.Judge("honest");
  BOOST_TEST_INFO("verdict: " << honest.dump());
  BOOST_REQUIRE(honest.value("ok", false));
  BOOST_TEST(honest.value("clock", std::string()) == "device");
  BOOST_TEST_MESSAGE("honest fake: unexplained/allowed median " << honest.at("device_unexplained_median").dump());
  BOOST_TEST(honest.at("device_unexplained_median").get<double>() < 1);
  // Every sample is the fake's reported time, at least the kernel's 20 ms
  // sleep, and the claims fit inside the judge's round trips.
  for (const auto& ns : honest.at("samples_ns")) BOOST_TEST(ns.get<double>() >= 20e6);
  BOOST_TEST(honest.value("device_claimed_s", 0.0) > 0);
  BOOST_TEST(honest.value("device_claimed_s", 0.0) <= honest.value("device_wall_s", 0.0));

  // The same honest runner beside two CPU hogs (the judge and the runner
  // descheduled at random): its claims are still its true time, and accepted.
  {
    std::vector<pid_t> hogs;
    for (int i = 0; i < 2; ++i) {
      pid_t p = fork();
      if (p == 0)
        for (;;) asm volatile("" ::: "memory");
      if (p > 0) hogs.push_back(p);
    }
    const json loaded = rig.Judge("honest");
    for (pid_t p : hogs) kill(p, SIGKILL);
    for (pid_t p : hogs) waitpid(p, nullptr, 0);
    BOOST_TEST_INFO("verdict beside two CPU hogs: " << loaded.dump());
    BOOST_TEST(loaded.value("ok", false));
  }

  const json under = rig.Judge("under");
  BOOST_TEST_INFO("verdict: " << under.dump());
  BOOST_TEST(!under.value("ok", true));
  BOOST_TEST(under.value("failure", std::string()) == "device_time");

  const json over = rig.Judge("over");
  BOOST_TEST_INFO("verdict: " << over.dump());
  BOOST_TEST(!over.value("ok", true));
  BOOST_TEST(over.value("failure", std::string()) == "protocol");
  BOOST_TEST(over.value("message", std::string()).find("must fit inside the judge's clock") != std::string::npos);
}

// The runner's environment is the judge's to give: without the job's
// runner_env naming the GPU the runner refuses to start (it would run on
// whichever GPU CUDA picks, not the one leased: before runner_env the
// judge's own CUDA_VISIBLE_DEVICES never reached it); a runner_env the judge
// must not pass on (LD_*) stops the judge.
BOOST_AUTO_TEST_CASE(the_runner_starts_only_on_the_gpu_the_job_names) {
  CudaJudgeRig rig;
  const json unnamed = rig.Judge("honest", "");
  BOOST_TEST_INFO("verdict: " << unnamed.dump());
  BOOST_TEST(!unnamed.value("ok", true));
  BOOST_TEST(unnamed.dump().find("CUDA_VISIBLE_DEVICES is not set") != std::string::npos);
  BOOST_TEST(rig.Judge("honest", "runner_env CUDA_VISIBLE_DEVICES=3\n").value("ok", false));
  // A kernel without the function: a load error, in the judge's words (the
  // runner's own, after the candidate's code ran, are not passed on).
  const std::string other_src = rig.cache + "/not_silu.cpp";
  BOOST_REQUIRE(rig.env->WriteFileAtomic(other_src, "extern \"C\" void not_silu() {}\n").ok());
  std::string other_so = rig.cache + "/not_silu.so";
  rig.Compile({"-O1", "-fPIC", "-shared", other_src}, other_so);
  std::swap(rig.kernel_so, other_so);
  const json missing = rig.Judge("honest");
  std::swap(rig.kernel_so, other_so);
  BOOST_TEST_INFO("verdict: " << missing.dump());
  BOOST_TEST(missing.value("failure", std::string()) == "load_error");
  BOOST_TEST(missing.value("message", std::string()).find("could not be loaded") != std::string::npos);
  BOOST_TEST(missing.value("message", std::string()).find("does not define") == std::string::npos);
  eval::EvalSettings s;
  s.seeds = {0};
  ProcessSpec spec;
  spec.argv = {rig.built.judge};
  eval::judge::HarnessCache harnesses(rig.cache, "g++", rig.env);
  auto secret = harnesses.Secret();
  BOOST_REQUIRE(secret.ok());
  auto cases = eval::judge::MakeCases(rig.problem, s, *secret, [&rig] { return rig.env->RandomU64(); });
  (void)rig.env->RemoveAll(rig.cache + "/pool");
  auto refs = harnesses.References(rig.problem, rig.built, cases, rig.cache + "/pool", nullptr);
  BOOST_REQUIRE(refs.ok());
  spec.stdin_data =
      eval::judge::JobText(rig.problem, "judge", rig.kernel_so, rig.fake_runner + "_honest", cases, *refs, s) +
      "clock device\nrunner_env LD_PRELOAD=/tmp/x.so\n";
  spec.clear_env = true;
  spec.timeout = std::chrono::seconds(60);
  auto r = rig.env->RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->exit_code != 0);
  BOOST_TEST(r->stderr_data.find("runner_env must be NAME=VALUE") != std::string::npos, r->stderr_data);
}

// CudaBackend end to end on this machine (nvcc, no GPU driver): the
// baseline passes the checks and compiles, the judge and the nvcc-built
// cuda runner start, and the runner's CUDA context cannot be created, so the
// evaluation is an internal error that says so (never a verdict on the
// kernel, never a time). With a GPU this same path times the kernel
// (scripts/gpu-check); that is unverified here.
BOOST_AUTO_TEST_CASE(cuda_backend_without_a_gpu_says_the_runner_could_not_start) {
  const std::string nvcc = ACCELOPT_TEST_NVCC;
  if (nvcc.empty()) {
    BOOST_TEST_MESSAGE("skipped: the build found no nvcc");
    return;
  }
  Env* env = Env::Default();
  const std::string cache = std::string(ACCELOPT_TEST_CACHE_DIR);
  // suites/cuda/silu at a small shape (its references are then small).
  const std::string dir = cache + "/problems-cuda/silu";
  BOOST_REQUIRE(env->CreateDirs(dir).ok());
  auto spec = ParseJson(CudaJudgeReadText(CudaJudgeSrc() + "/suites/cuda/silu/problem.json"));
  BOOST_REQUIRE(spec.ok());
  (*spec)["dims"] = {{"M", 64}, {"N", 512}};
  (*spec)["flops"] = 3 * 64 * 512;
  (*spec)["bytes"] = 4 * 2 * 64 * 512;
  BOOST_REQUIRE(env->WriteFileAtomic(dir + "/problem.json", spec->dump(2)).ok());
  for (const char* f : {"/reference.cpp", "/baseline.cu"})
    BOOST_REQUIRE(env->WriteFileAtomic(dir + f, CudaJudgeReadText(CudaJudgeSrc() + "/suites/cuda/silu" + f)).ok());

  eval::cuda::CudaBackendOptions o;
  o.env = env;
  o.cache_dir = cache;
  o.nvcc = nvcc;
  o.devices = {3};  // absent here; CUDA_VISIBLE_DEVICES=3 must reach the runner
  eval::cuda::CudaBackend backend(o);
  eval::EvalRequest r;
  r.backend = "cuda";
  r.problem = dir;
  r.source = CudaJudgeReadText(dir + "/baseline.cu");
  r.settings.seeds = {0};
  r.settings.adversarial = false;
  r.settings.timeout_s = 60;
  const eval::EvalResult res = backend.Evaluate(r, nullptr);
  BOOST_TEST_INFO("result: " << res.ToJson().dump());
  BOOST_TEST(res.compiled);
  BOOST_TEST(res.sandbox.value("cuda_device", -1) == 3);
  if (res.reason.find("the cuda runner could not start on GPU 3") != std::string::npos) {  // no GPU 3 (here: no driver)
    BOOST_TEST(!res.latency.has_value());
    BOOST_TEST(static_cast<int>(res.status) == static_cast<int>(eval::EvalStatus::kInternalError));
    BOOST_TEST(res.reason.find("CUDA") != std::string::npos);
  } else {  // a machine with a GPU 3 (scripts/gpu-check): the baseline is correct and timed
    BOOST_TEST(static_cast<int>(res.status) == static_cast<int>(eval::EvalStatus::kOk));
    BOOST_TEST(res.latency.has_value());
  }
  // The runner was built by nvcc and is cached for the next evaluation.
  auto problem = eval::LoadProblem(dir, env);
  BOOST_REQUIRE(problem.ok());
  auto runner = backend.Runner(*problem, nullptr);
  BOOST_REQUIRE(runner.ok());
  BOOST_TEST(env->IsFile(*runner));
}

BOOST_AUTO_TEST_SUITE_END()
