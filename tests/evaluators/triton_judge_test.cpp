// The triton runner (evaluators/triton/harness/runner.py) under the real cpu
// judge with `clock device`, without a GPU: the runner's loop on its
// host-memory test double (tests/fakes/triton/fake_runner.py, numpy), with
// candidates written in numpy for that double. The fake's "device time" is a
// host-clock stand-in: these tests check the protocol and the verdicts, and
// no number they see is a GPU measurement. Needs /usr/bin/python3 with
// numpy (scripts/setup installs python3-numpy).
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <functional>
#include <sstream>

#include "base/env.hpp"
#include "base/json.hpp"
#include "evaluators/judge/harness_builder.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/triton/triton_backend.hpp"
#include "tests/evaluators/judge_run.hpp"

using namespace accelopt;

namespace {

std::string TritonJudgeSrc() { return ACCELOPT_SOURCE_DIR; }

std::string TritonJudgeReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// silu that sleeps 20 ms a call (a GPU kernel leaves the host idle too): a
// hidden part of it is plain to see next to the runner's handshake.
const char kSlowSilu[] = R"(import time
import numpy as np

def silu(x, out, M, N):
    out[:] = x / (np.float32(1) + np.exp(-x))
    time.sleep(0.02)
)";

// Computes once, then skips the work when the inputs look unchanged: the
// runner's NaN-fill before every call leaves its outputs NaN.
const char kSkipsWork[] = R"(import numpy as np
_seen = {}

def silu(x, out, M, N):
    key = float(x[0])
    if key in _seen:
        return
    _seen[key] = True
    out[:] = x / (np.float32(1) + np.exp(-x))
)";

// Writes into its input (the runner copies inputs back: the judge sees it).
const char kWritesInput[] = R"(import numpy as np

def silu(x, out, M, N):
    out[:] = x / (np.float32(1) + np.exp(-x))
    x[0] = 0
)";

const char kNoFunction[] = R"(def not_silu(x, out, M, N):
    pass
)";

struct TritonJudgeRig {
  Env* env = Env::Default();
  std::string cache = ACCELOPT_TEST_CACHE_DIR;
  eval::Problem problem;
  eval::judge::HarnessCache::Built built;
  std::string runner_dir;

  TritonJudgeRig() {
    BOOST_REQUIRE(env->CreateDirs(cache).ok());
    const std::string dir = cache + "/problems/silu";
    BOOST_REQUIRE(env->CreateDirs(dir).ok());
    auto spec = ParseJson(TritonJudgeReadText(TritonJudgeSrc() + "/suites/cpu/silu/problem.json"));
    BOOST_REQUIRE(spec.ok());
    (*spec)["dims"] = {{"M", 64}, {"N", 512}};
    (*spec)["flops"] = 3 * 64 * 512;
    (*spec)["bytes"] = 4 * 2 * 64 * 512;
    BOOST_REQUIRE(env->WriteFileAtomic(dir + "/problem.json", spec->dump(2)).ok());
    for (const char* f : {"/reference.cpp", "/baseline.cpp"})
      BOOST_REQUIRE(env->WriteFileAtomic(dir + f, TritonJudgeReadText(TritonJudgeSrc() + "/suites/cpu/silu" + f)).ok());
    auto p = eval::LoadProblem(dir, env);
    BOOST_REQUIRE_MESSAGE(p.ok(), p.status().ToString());
    problem = *p;
    eval::judge::HarnessCache harnesses(cache, "g++", env);
    auto b = harnesses.Get(problem, nullptr);
    BOOST_REQUIRE_MESSAGE(b.ok(), b.status().ToString());
    built = *b;
    // The runner and its double, one copy of the double per mode (the judge
    // passes no mode), each started through its first line.
    runner_dir = cache + "/triton-fake";
    BOOST_REQUIRE(env->CreateDirs(runner_dir).ok());
    BOOST_REQUIRE(env->WriteFileAtomic(runner_dir + "/runner.py",
                                       TritonJudgeReadText(TritonJudgeSrc() + "/evaluators/triton/harness/runner.py"))
                      .ok());
    const std::string fake = TritonJudgeReadText(TritonJudgeSrc() + "/tests/fakes/triton/fake_runner.py");
    for (const char* mode : {"honest", "under", "over"}) {
      const std::string path = runner_dir + "/fake_runner_" + mode;
      BOOST_REQUIRE(env->WriteFileAtomic(path, "#!/usr/bin/python3 -I\n" + fake).ok());
      BOOST_REQUIRE(env->SetPermissions(path, 0755).ok());
    }
  }

  // Runs the judge on `candidate` with the fake in `mode`; the verdict.
  json Judge(const std::string& candidate, const std::string& mode,
             const std::string& extra = "runner_env CUDA_VISIBLE_DEVICES=0\n") {
    const std::string source = cache + "/candidate-" + std::to_string(std::hash<std::string>{}(candidate)) + ".py";
    BOOST_REQUIRE(env->WriteFileAtomic(source, candidate).ok());
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
        eval::judge::JobText(problem, "judge", source, runner_dir + "/fake_runner_" + mode, cases, *refs, s) +
            "clock device\nnull_calls 40\n" + extra,
        mode);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(triton_judge)

// An honest claim passes and becomes the samples; a runner that hides time
// is caught by the judge's clock; one that claims more than the round trip
// is refused.
BOOST_AUTO_TEST_CASE(the_judge_bounds_the_python_runners_claims) {
  TritonJudgeRig rig;
  const json honest = rig.Judge(kSlowSilu, "honest");
  BOOST_TEST_INFO("verdict: " << honest.dump());
  BOOST_REQUIRE(honest.value("ok", false));
  BOOST_TEST(honest.value("clock", std::string()) == "device");
  BOOST_TEST(honest.at("device_unexplained_median").get<double>() < 1);
  for (const auto& ns : honest.at("samples_ns")) BOOST_TEST(ns.get<double>() >= 20e6);
  BOOST_TEST(honest.value("device_claimed_s", 0.0) <= honest.value("device_wall_s", 0.0));

  const json under = rig.Judge(kSlowSilu, "under");
  BOOST_TEST_INFO("verdict: " << under.dump());
  BOOST_TEST(under.value("failure", std::string()) == "device_time");

  const json over = rig.Judge(kSlowSilu, "over");
  BOOST_TEST_INFO("verdict: " << over.dump());
  BOOST_TEST(over.value("failure", std::string()) == "protocol");
}

// The runner's per-call sequence, seen through the judge's verdicts: work
// skipped on a repeated input leaves the NaN the runner filled in; a write
// into an input comes back to the judge; a module without the function is a
// load error; without the leased GPU named the runner does not start.
BOOST_AUTO_TEST_CASE(the_runners_call_sequence_catches_what_it_is_for) {
  TritonJudgeRig rig;
  const json skipped = rig.Judge(kSkipsWork, "honest");
  BOOST_TEST_INFO("verdict: " << skipped.dump());
  BOOST_TEST(!skipped.value("ok", true));
  BOOST_TEST(skipped.value("failure", std::string()) == "wrong_result");

  const json wrote = rig.Judge(kWritesInput, "honest");
  BOOST_TEST_INFO("verdict: " << wrote.dump());
  BOOST_TEST(wrote.value("failure", std::string()) == "wrong_result");
  BOOST_TEST(wrote.value("message", std::string()).find("modified input 'x'") != std::string::npos);

  const json missing = rig.Judge(kNoFunction, "honest");
  BOOST_TEST_INFO("verdict: " << missing.dump());
  BOOST_TEST(missing.value("failure", std::string()) == "load_error");
  // In the judge's words: the runner's own, once the module was imported,
  // are the candidate's and are not passed on.
  BOOST_TEST(missing.value("message", std::string()).find("could not be loaded") != std::string::npos);

  const json unnamed = rig.Judge(kSlowSilu, "honest", "");
  BOOST_TEST_INFO("verdict: " << unnamed.dump());
  BOOST_TEST(!unnamed.value("ok", true));
  BOOST_TEST(unnamed.dump().find("CUDA_VISIBLE_DEVICES is not set") != std::string::npos);
}

// TritonBackend end to end on this machine (no torch, no GPU): a candidate
// the static checks refuse never reaches the judge; the suite's baseline
// passes them, the judge and the runner start, and the runner cannot bring
// torch up, so the evaluation is an internal error that says so (never a
// verdict on the kernel, never a time). With torch, triton and a GPU this
// same path times the kernel; that is unverified.
BOOST_AUTO_TEST_CASE(the_triton_backend_without_torch_says_the_runner_could_not_start) {
  Env* env = Env::Default();
  const std::string cache = ACCELOPT_TEST_CACHE_DIR;
  const std::string dir = cache + "/problems-triton/silu";
  BOOST_REQUIRE(env->CreateDirs(dir).ok());
  auto spec = ParseJson(TritonJudgeReadText(TritonJudgeSrc() + "/suites/triton/silu/problem.json"));
  BOOST_REQUIRE(spec.ok());
  (*spec)["dims"] = {{"M", 64}, {"N", 512}};
  (*spec)["flops"] = 3 * 64 * 512;
  (*spec)["bytes"] = 4 * 2 * 64 * 512;
  BOOST_REQUIRE(env->WriteFileAtomic(dir + "/problem.json", spec->dump(2)).ok());
  for (const char* f : {"/reference.cpp", "/baseline.py"})
    BOOST_REQUIRE(
        env->WriteFileAtomic(dir + f, TritonJudgeReadText(TritonJudgeSrc() + "/suites/triton/silu" + f)).ok());
  eval::triton::TritonBackendOptions o;
  o.env = env;
  o.cache_dir = cache + "/backend";
  o.python = "/usr/bin/python3";
  o.devices = {2};  // the runner must be told this one
  eval::triton::TritonBackend backend(o);
  eval::EvalSettings s;
  s.seeds = {0};
  s.adversarial = false;
  eval::EvalRequest refused{"", "triton", dir, "import os\ndef silu(x, out, M, N):\n    os.system('true')\n", s};
  eval::EvalResult r = backend.Evaluate(refused, nullptr);
  BOOST_TEST((r.status == eval::EvalStatus::kStaticCheckFailed), r.reason);
  BOOST_TEST(r.reason.find("import of 'os'") != std::string::npos, r.reason);

  eval::EvalRequest baseline{"", "triton", dir, TritonJudgeReadText(dir + "/baseline.py"), s};
  r = backend.Evaluate(baseline, nullptr);
  BOOST_TEST_MESSAGE("baseline without torch: " << r.reason << "\n" << r.error_text);
  ProcessSpec probe;
  probe.argv = {"/usr/bin/python3", "-c", "import torch, triton"};
  auto has_torch = env->RunProcess(probe);
  if (has_torch.ok() && has_torch->exit_code == 0) {
    BOOST_TEST_MESSAGE("torch and triton are installed here: the baseline must then be timed or fail on the GPU");
    return;
  }
  BOOST_TEST((r.status == eval::EvalStatus::kInternalError));
  BOOST_TEST(r.reason.find("the triton runner could not start on GPU 2") != std::string::npos, r.reason);
  BOOST_TEST(r.reason.find("torch") != std::string::npos, r.reason);
  BOOST_TEST(!r.latency.has_value());
  auto runner = backend.Runner();
  BOOST_REQUIRE(runner.ok());
  auto text = env->ReadFile(*runner);
  BOOST_REQUIRE(text.ok());
  BOOST_TEST(text->rfind("#!/usr/bin/python3 -I\n", 0) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
