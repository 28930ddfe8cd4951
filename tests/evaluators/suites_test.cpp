// Suites on disk (evaluators/suites.hpp) and the entry points that read a
// problem.json: each refuses a malformed one with the file and the field;
// every file operation goes through the Env, so a failing one is reported
// cleanly (after leveldb's fault-injection tests).
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>

#include "base/env.hpp"
#include "base/subprocess.hpp"
#include "evaluators/cpu/cpu_backend.hpp"
#include "evaluators/suites.hpp"

using namespace accelopt;
using namespace accelopt::eval;
namespace fs = std::filesystem;

namespace {

const std::string kProblems = std::string(ACCELOPT_SOURCE_DIR) + "/tests/evaluators/problems";

// A suite folder with a copy of the test silu and a "broken" problem whose
// problem.json has an unknown key in a param.
struct TempSuite {
  std::string dir;
  TempSuite() {
    char tmpl[] = "/tmp/accelopt-suites-test-XXXXXX";
    dir = mkdtemp(tmpl);
    Env* env = Env::Default();
    for (const char* name : {"silu", "broken"}) {
      (void)env->CreateDirs(dir + "/" + name);
      for (const char* f : {"problem.json", "reference.cpp", "baseline.cpp"})
        (void)env->WriteFileAtomic(dir + "/" + name + "/" + f, *env->ReadFile(kProblems + "/silu/" + f));
    }
    json broken = *ReadJsonFile(env, dir + "/broken/problem.json");
    broken["params"][0]["colour"] = "blue";
    (void)env->WriteFileAtomic(dir + "/broken/problem.json", Dump(broken));
    (void)env->CreateDirs(dir + "/not-a-problem");
  }
  ~TempSuite() { (void)Env::Default()->RemoveAll(dir); }
};

const char kBrokenField[] = "params[0]: unknown key `colour`";

// accelopt-eval with `args`, within a minute.
auto run(std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {ACCELOPT_EVAL_PATH};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = std::chrono::seconds(60);
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  return *r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(suites)

BOOST_AUTO_TEST_CASE(lists_problem_folders_and_resolves_ids) {
  TempSuite s;
  auto dirs = ListProblemDirs(s.dir, Env::Default());
  BOOST_REQUIRE_MESSAGE(dirs.ok(), dirs.status().ToString());
  BOOST_TEST(*dirs == (std::vector<std::string>{s.dir + "/broken", s.dir + "/silu"}));
  BOOST_TEST(ListProblemDirs(s.dir + "/nope", Env::Default()).status().code() == Code::kNotFound);

  auto listed = ListSuite("t", s.dir, Env::Default());
  BOOST_REQUIRE(listed.ok());
  BOOST_REQUIRE(listed->size() == 2u);
  BOOST_TEST((*listed)[0].id == "suites/t/broken");
  BOOST_TEST((*listed)[0].error.message().find(kBrokenField) != std::string::npos, (*listed)[0].error.message());
  BOOST_TEST((*listed)[1].error.ok());
  BOOST_TEST((*listed)[1].spec.bound == "memory");

  const std::map<std::string, std::string> suites = {{"t", s.dir}};
  BOOST_TEST(ProblemDirOf(suites, "suites/t/silu") == s.dir + "/silu");
  BOOST_TEST(ProblemDirOf(suites, "suites/t/../etc") == "");
  BOOST_TEST(ProblemDirOf(suites, "suites/other/silu") == "");
  BOOST_TEST(ProblemDirOf(suites, "silu") == "");
}

BOOST_AUTO_TEST_CASE(a_malformed_problem_is_refused_when_loaded) {
  TempSuite s;
  auto ok = LoadProblemSource(s.dir + "/silu", "suites/t/silu", Env::Default());
  BOOST_REQUIRE_MESSAGE(ok.ok(), ok.status().ToString());
  BOOST_TEST(!ok->reference.empty());
  auto bad = LoadProblemSource(s.dir + "/broken", "suites/t/broken", Env::Default());
  BOOST_REQUIRE(!bad.ok());
  BOOST_TEST(bad.status().code() == Code::kInvalidArgument);
  const std::string m = bad.status().message();
  BOOST_TEST(m == "problem 'suites/t/broken': " + s.dir + "/broken/problem.json: " + kBrokenField +
                      " (known: distribution, dtype, kind, name, shape)",
             m);
  auto problem = LoadProblem(s.dir + "/broken", Env::Default());
  BOOST_REQUIRE(!problem.ok());
  BOOST_TEST(problem.status().message().find(s.dir + "/broken/problem.json: " + kBrokenField) == 0);
  BOOST_TEST(LoadProblemSource(s.dir + "/nope", "suites/t/nope", Env::Default()).status().code() == Code::kNotFound);
}

// Every file operation of loading a problem fails in turn: each failure is
// an error naming the operation and the file, never a crash or a half-loaded
// problem; past the last operation the load succeeds.
BOOST_AUTO_TEST_CASE(the_nth_failing_file_operation_is_reported) {
  TempSuite s;
  FaultyFileEnv env(Env::Default());
  int64_t n = 1;
  for (; n < 20; ++n) {
    env.ResetCount();
    env.FailAt(n);
    auto src = LoadProblemSource(s.dir + "/silu", "suites/t/silu", &env);
    if (src.ok()) break;
    BOOST_TEST_CONTEXT("operation " << n) {
      BOOST_TEST(src.status().code() == Code::kIOError);
      BOOST_TEST(src.status().message().find("injected fault: read " + s.dir + "/silu/") != std::string::npos,
                 src.status().message());
    }
  }
  BOOST_TEST(n == 4);  // problem.json, reference.cpp, baseline.cpp
  for (n = 1; n < 5; ++n) {
    env.ResetCount();
    env.FailAt(n);
    auto listed = ListSuite("t", s.dir, &env);
    if (n == 1) {  // the listing itself
      BOOST_TEST(!listed.ok());
      continue;
    }
    BOOST_REQUIRE(listed.ok());
    BOOST_TEST(listed->size() == 2u);  // one problem's file could not be read: that problem says so
    int failed = 0;
    for (const auto& p : *listed) failed += p.error.message().find("injected fault") != std::string::npos;
    BOOST_TEST(failed == (n <= 3 ? 1 : 0));
  }
}

// The cpu backend loads the problem through its Env before anything else:
// a malformed or unreadable problem.json is an internal error naming it,
// and the timings come from the Env's clock (a fake one does not move).
BOOST_AUTO_TEST_CASE(the_cpu_backend_refuses_a_malformed_problem_on_its_env) {
  TempSuite s;
  FakeClockEnv clock(Env::Default());
  FaultyFileEnv env(&clock);
  cpu::CpuBackendOptions o;
  o.env = &env;
  o.cache_dir = s.dir + "/cache";
  o.calibration = cpu::Calibration{};
  cpu::CpuBackend backend(o);
  EvalRequest req;
  req.backend = "cpu";
  req.problem = s.dir + "/broken";
  req.source = "extern \"C\" void silu() {}";
  EvalResult r = backend.Evaluate(req, nullptr);
  BOOST_TEST((r.status == EvalStatus::kInternalError));
  BOOST_TEST(r.reason.find("cannot load the problem: " + s.dir + "/broken/problem.json: " + kBrokenField) == 0,
             r.reason);
  BOOST_TEST(r.timings.total_s == 0.0);

  env.FailAt(env.operations() + 1);  // the next read: problem.json
  req.problem = s.dir + "/silu";
  r = backend.Evaluate(req, nullptr);
  BOOST_TEST((r.status == EvalStatus::kInternalError));
  BOOST_TEST(r.reason == "cannot load the problem: injected fault: read " + s.dir + "/silu/problem.json", r.reason);
}

// accelopt-eval's commands that read a problem refuse a malformed one with
// the file and the field, before any calibration or compilation.
BOOST_AUTO_TEST_CASE(accelopt_eval_refuses_a_malformed_problem) {
  TempSuite s;
  const std::string expected = s.dir + "/broken/problem.json: " + kBrokenField;
  auto prompts = run({"prompts", "--problem", s.dir + "/broken", "--role", "planner", "--cache-dir", s.dir + "/cache"});
  BOOST_TEST(prompts.exit_code == 2);
  BOOST_TEST(prompts.stderr_data.find(expected) != std::string::npos, prompts.stderr_data);
  auto one = run({"run", "--problem", s.dir + "/broken", "--kernel", s.dir + "/broken/baseline.cpp", "--cache-dir",
                  s.dir + "/cache"});
  BOOST_TEST(one.exit_code == 3);
  BOOST_TEST(one.stderr_data.find(expected) != std::string::npos, one.stderr_data);
  BOOST_TEST(!Env::Default()->Exists(s.dir + "/cache/calibration.json"));  // refused before calibrating
}

// `accelopt-eval prompts` on an nki problem renders with the Trainium
// generation's facts (no calibration exists for nki) and asks for Python.
BOOST_AUTO_TEST_CASE(accelopt_eval_prompts_for_an_nki_problem_use_the_generation_facts) {
  TempSuite s;
  const std::string out = s.dir + "/nki";
  auto imp = run({"import", "nkibench", std::string(ACCELOPT_SOURCE_DIR) + "/tests/evaluators/nkibench", "--out", out});
  BOOST_REQUIRE_MESSAGE(imp.exit_code == 0, imp.stderr_data);
  auto p = run({"prompts", "--problem", out + "/silu", "--role", "executor", "--cache-dir", s.dir + "/cache"});
  BOOST_TEST(p.exit_code == 0, p.stderr_data);
  BOOST_TEST(p.stdout_data.find("One NeuronCore-v2") != std::string::npos, p.stdout_data);
  BOOST_TEST(p.stdout_data.find("```python") != std::string::npos);
  BOOST_TEST(p.stdout_data.find("def kernel(") != std::string::npos);
  BOOST_TEST(!Env::Default()->Exists(s.dir + "/cache/calibration.json"));
}

// `accelopt-eval prompts` on a triton problem: the triton set (its rules,
// the Python call with tensor kinds), the GPU facts from the cuda
// calibration file, the C++ reference fenced as C++ and the kernel as Python.
BOOST_AUTO_TEST_CASE(accelopt_eval_prompts_for_a_triton_problem) {
  TempSuite s;
  const std::string facts = s.dir + "/gpu.json";
  BOOST_REQUIRE(
      Env::Default()->WriteFileAtomic(facts, R"({"gpu": {"name": "test facts, not a GPU", "sm_count": 7}})").ok());
  ProcessSpec spec;
  spec.argv = {
      ACCELOPT_EVAL_PATH, "prompts",  "--problem",     std::string(ACCELOPT_SOURCE_DIR) + "/suites/triton/matmul",
      "--role",           "executor", "--calibration", facts};
  spec.timeout = std::chrono::seconds(60);
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  const std::string& out = r->stdout_data;
  BOOST_TEST(r->exit_code == 0, r->stderr_data);
  BOOST_TEST(out.find("for the triton backend") != std::string::npos, out);
  BOOST_TEST(out.find("tl.dot must pass input_precision=\"ieee\"") != std::string::npos);
  BOOST_TEST(out.find("- GPU: test facts, not a GPU") != std::string::npos);
  BOOST_TEST(out.find("```cpp\n// matmul reference") != std::string::npos);
  BOOST_TEST(
      out.find("```python\ndef matmul(lhs, rhs, out, M, K, N)\n# lhs, rhs, out (output): flat contiguous float32 torch "
               "CUDA tensors\n# M, K, N: Python ints\n```") != std::string::npos);
  BOOST_TEST(out.find("```python\n# matmul baseline") != std::string::npos);
  BOOST_TEST(out.find("extern \"C\"") == out.find("extern \"C\" void matmul_reference"));  // only the reference's
}

// accelopt-eval finds a problem's backend in its table of backends
// (evaluators/eval_tool/tool_backends.hpp): a name without a row is refused
// by name, listing the rows, before any calibration; --compare and
// calibrate say which backends have them.
BOOST_AUTO_TEST_CASE(accelopt_eval_looks_backends_up_in_its_table) {
  TempSuite s;
  json p = *ReadJsonFile(Env::Default(), s.dir + "/silu/problem.json");
  p["backend"] = "wasm";
  BOOST_REQUIRE(Env::Default()->WriteFileAtomic(s.dir + "/silu/problem.json", Dump(p)).ok());
  auto one = run(
      {"run", "--problem", s.dir + "/silu", "--kernel", s.dir + "/silu/baseline.cpp", "--cache-dir", s.dir + "/cache"});
  BOOST_TEST(one.exit_code == 3, one.stderr_data);
  BOOST_TEST(one.stderr_data.find("no backend 'wasm' (there are cpu, cuda, nki, triton)") != std::string::npos,
             one.stderr_data);
  BOOST_TEST(!Env::Default()->Exists(s.dir + "/cache/calibration.json"));  // refused before calibrating

  auto cal = run({"calibrate", "--backend", "triton", "--cache-dir", s.dir + "/cache"});
  BOOST_TEST(cal.exit_code == 2);
  BOOST_TEST(
      cal.stderr_data.find("the triton backend has nothing to calibrate (--backend cpu | cuda)") != std::string::npos,
      cal.stderr_data);

  const std::string out = s.dir + "/nki";
  auto imp = run({"import", "nkibench", std::string(ACCELOPT_SOURCE_DIR) + "/tests/evaluators/nkibench", "--out", out});
  BOOST_REQUIRE_MESSAGE(imp.exit_code == 0, imp.stderr_data);
  auto cmp = run({"run", "--problem", out + "/silu", "--kernel", out + "/silu/baseline.py", "--compare",
                  out + "/silu/baseline.py"});
  BOOST_TEST(cmp.exit_code == 2);
  BOOST_TEST(cmp.stderr_data.find("--compare is not built for nki problems") != std::string::npos, cmp.stderr_data);
}

BOOST_AUTO_TEST_SUITE_END()
