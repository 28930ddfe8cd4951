// The nki runner plumbing end to end with the test-only SDK stand-in
// (tests/fakes/nki): the real runner.py and reference_runner.py under
// /usr/bin/python3 (numpy required: scripts/setup installs python3-numpy),
// the judge's comparison, crash, timeout, the output channel, the judge's
// own neuron-profile runs, and the refusal of stand-in results outside tests.
#include <boost/test/unit_test.hpp>

#include "base/env.hpp"
#include "evaluators/nki/evaluate.hpp"
#include "evaluators/nki/nkibench_import.hpp"
#include "evaluators/nki/runner_link.hpp"
#include "evaluators/problem.hpp"
#include "tests/evaluators/nki_test_util.hpp"

using namespace accelopt;
using namespace accelopt::eval;
using namespace accelopt::eval::nki;
using namespace accelopt::eval::nki::testing;

namespace {

const std::string kRunnerSrc = ACCELOPT_SOURCE_DIR;

// The fixture imported once; its silu problem.
struct Suite {
  TempDir tmp;
  Problem silu;
  Suite() {
    ImportOptions o;
    o.nkibench_dir = kFixture;
    o.out_dir = tmp.sub("suites/nki");
    auto r = ImportNkiBench(o, Env::Default());
    BOOST_REQUIRE_MESSAGE(r.ok(), r.status().ToString());
    auto p = LoadProblem(o.out_dir + "/silu", Env::Default());
    BOOST_REQUIRE_MESSAGE(p.ok(), p.status().ToString());
    silu = *p;
  }
};

Suite& S() {
  static Suite s;
  return s;
}

void RequireNumpy() {
  ProcessSpec p;
  p.argv = {"/usr/bin/python3", "-c", "import numpy"};
  auto r = Env::Default()->RunProcess(p);
  BOOST_REQUIRE_MESSAGE(r.ok() && r->Succeeded(),
                        "these tests run the real runner.py and need numpy in /usr/bin/python3: "
                        "apt-get install python3-numpy (scripts/setup does)");
}

NkiEvalOptions Options() {
  NkiEvalOptions o;
  o.runner.python = "/usr/bin/python3";
  o.runner.reference_python = "/usr/bin/python3";
  o.runner.runner_script = kRunnerSrc + "/evaluators/nki/runner.py";
  o.runner.reference_script = kRunnerSrc + "/evaluators/nki/reference_runner.py";
  o.runner.profiler = kRunnerSrc + "/tests/fakes/nki/bin/neuron-profile";
  o.runner.env["PYTHONPATH"] = kRunnerSrc + "/tests/fakes/nki/python";
  o.runner.timeout = std::chrono::milliseconds(20000);
  o.timing.warmup = 1;
  o.timing.iterations = 3;
  o.measure = false;
  o.normal_cases = 2;
  o.allow_test_stand_in = true;
  o.work_root = S().tmp.path();
  return o;
}

NkiEvalOutcome Run(const std::string& kernel, const NkiEvalOptions& o) {
  RequireNumpy();
  return EvaluateNki(S().silu, S().silu.reference_path,
                     ReadText(kRunnerSrc + "/tests/evaluators/nki_kernels/" + kernel), 7, o, Env::Default(), nullptr);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nki_runner)

BOOST_AUTO_TEST_CASE(the_runner_process_gets_its_core_and_no_network) {
  RunnerSettings s;
  s.python = "/opt/aws_neuronx_venv_pytorch/bin/python";
  s.runner_script = "/usr/share/accelopt/nki/runner.py";
  auto p = RunnerProcess(s, "/w/job.json", 5, "/w", nullptr);
  BOOST_TEST(p.argv[0] == s.python);
  BOOST_TEST(p.env_set.at("NEURON_RT_VISIBLE_CORES") == "5");
  BOOST_TEST(p.env_set.at("NEURON_RT_NUM_CORES") == "1");
  BOOST_TEST(p.env_set.at("NEURON_CC_FLAGS") == "--auto-cast=none");
  BOOST_TEST(p.env_set.at("NEURON_LOGICAL_NC_CONFIG") == "1");
  BOOST_TEST(CompileOptions(s) == "--disable-dge --logical-nc-config=1");
  // trn2 at LNC=2: the compile flag equals the runtime's config.
  s.lnc = 2;
  BOOST_TEST(RunnerProcess(s, "/w/job.json", 5, "/w", nullptr).env_set.at("NEURON_LOGICAL_NC_CONFIG") == "2");
  BOOST_TEST(CompileOptions(s) == "--disable-dge --logical-nc-config=2");
  s.lnc = 1;
  BOOST_TEST(p.clear_env);
  BOOST_TEST(p.private_network);
  BOOST_TEST(p.timeout.count() == 180000);
  auto prof = ProfilerProcess(s, "a.neff", "a.ntff", "/w", nullptr);
  BOOST_TEST((prof.argv == std::vector<std::string>{"neuron-profile", "view", "--output-format", "summary-json", "-n",
                                                    "a.neff", "-s", "a.ntff"}));
}

BOOST_AUTO_TEST_CASE(the_record_channel_is_json_lines_and_outputs_are_files) {
  // Records are lines; an output's bytes are in the file it names, not on
  // the channel (which holds 1 MiB: no 2 GiB cap, nothing dropped).
  auto r = ParseRecords("{\"type\":\"output\",\"nbytes\":4,\"file\":\"c0_k0.f32\"}\n{\"type\":\"done\"}\n");
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->size() == 2u);
  BOOST_TEST((*r)[0].header["file"] == "c0_k0.f32");
  RunnerSettings s;
  BOOST_TEST(RunnerProcess(s, "/w/job.json", 0, "/w", nullptr).max_output_bytes == size_t{1} << 20);
  BOOST_TEST(!ParseRecords("latency: 1 ms\n").ok());
  BOOST_TEST(!ParseRecords("{\"type\":\"done\"}").ok());  // no newline
  BOOST_TEST(!ParseRecords("{\"type\":\"output\",\"nbytes\":-1}\n").ok());
}

BOOST_AUTO_TEST_CASE(a_correct_kernel_passes_and_is_timed_by_the_judges_profiler) {
  NkiEvalOptions o = Options();
  o.measure = true;
  auto r = Run("good.py", o);
  BOOST_TEST(r.status == "ok", r.reason + "\n" + r.runner_stderr);
  BOOST_TEST(r.stand_in);
  BOOST_TEST(r.worst_rel_error < 1e-6);
  BOOST_REQUIRE(r.timing.has_value());
  BOOST_TEST(r.timing->rounds.size() == 1u);
  BOOST_TEST(r.timing->rounds[0].samples_s.size() == 3u);
  BOOST_TEST(r.timing->latency_s == 0.002, boost::test_tools::tolerance(0.01));
  BOOST_REQUIRE(r.profile.has_value());
  BOOST_TEST(r.profile->fields.size() == 16u);
  BOOST_REQUIRE(r.percent_of_peak.has_value());
  // 1 MiB of HBM traffic at 410 GiB/s is 2.38 us: 0.119% of 2 ms.
  BOOST_TEST(*r.percent_of_peak == 100 * (1048576.0 / (410.0 * 1073741824)) / 0.002,
             boost::test_tools::tolerance(0.01));
  BOOST_TEST(r.ToJson()["device"] == "test stand-in (NOT a Trainium measurement)");
}

BOOST_AUTO_TEST_CASE(stand_in_results_are_refused_outside_tests) {
  NkiEvalOptions o = Options();
  o.allow_test_stand_in = false;
  auto r = Run("good.py", o);  // not even measured: the runner's hello says stand-in
  BOOST_TEST(r.status == "internal_error");
  BOOST_TEST(r.reason.find("test-only Neuron SDK stand-in") != std::string::npos, r.reason);
  BOOST_TEST(!r.timing.has_value());
  // Not even a verdict: a wrong kernel under the stand-in is refused the same way.
  auto w = Run("wrong.py", o);
  BOOST_TEST(w.status == "internal_error");
  BOOST_TEST(w.reason.find("test-only Neuron SDK stand-in") != std::string::npos, w.reason);
}

BOOST_AUTO_TEST_CASE(wrong_results_crashes_timeouts_and_dtypes) {
  auto wrong = Run("wrong.py", Options());
  BOOST_TEST(wrong.status == "wrong_result", wrong.reason);
  BOOST_TEST(wrong.reason.find("case 0: output 'out' relative L2 error") != std::string::npos, wrong.reason);

  auto crash = Run("crash.py", Options());
  BOOST_TEST(crash.status == "crash", crash.reason);
  BOOST_TEST(crash.reason.find("signal 11") != std::string::npos, crash.reason);
  BOOST_TEST(crash.core_suspect);

  NkiEvalOptions quick = Options();
  quick.runner.timeout = std::chrono::milliseconds(1000);
  auto hang = Run("hang.py", quick);
  BOOST_TEST(hang.status == "timeout", hang.reason);
  BOOST_TEST(hang.core_suspect);

  auto f64 = Run("float64.py", Options());
  BOOST_TEST(f64.status == "wrong_result", f64.reason);
  BOOST_TEST(f64.reason.find("dtype float64, expected float32") != std::string::npos, f64.reason);

  // What a kernel prints never reaches the channel.
  auto prints = Run("prints.py", Options());
  BOOST_TEST(prints.status == "ok", prints.reason);
  BOOST_TEST(prints.runner_stderr.find("latency: 0.000001 ms") != std::string::npos);

  // Static checks run before anything starts.
  RequireNumpy();
  auto rejected = EvaluateNki(S().silu, S().silu.reference_path, "import os\n", 0, Options(), Env::Default(), nullptr);
  BOOST_TEST(rejected.status == "rejected");
}

BOOST_AUTO_TEST_CASE(a_kernel_that_changes_when_timed_is_caught) {
  NkiEvalOptions o = Options();
  o.measure = true;
  auto r = Run("switch_when_timed.py", o);
  BOOST_TEST(r.status == "wrong_result", r.reason);
  BOOST_TEST(r.reason.find("round 0, warmup 0 run (case 0's inputs): output 'out'") != std::string::npos, r.reason);
  BOOST_TEST(!r.timing.has_value());
}

BOOST_AUTO_TEST_CASE(no_sdk_is_a_broken_backend_not_a_bad_kernel) {
  NkiEvalOptions o = Options();
  o.runner.env.erase("PYTHONPATH");  // /usr/bin/python3 has no neuronxcc
  auto r = Run("good.py", o);
  BOOST_TEST(r.status == "internal_error");
  BOOST_TEST(r.reason.find("the Neuron SDK cannot be imported") != std::string::npos, r.reason);
  BOOST_TEST(!r.core_suspect);
}

// A device time just above the roofline (as a strong kernel's would be) is
// a record near 100% of peak, not suspicious.
BOOST_AUTO_TEST_CASE(a_time_near_the_roofline_is_a_record) {
  NkiEvalOptions o = Options();
  o.measure = true;
  auto r = Run("near_roofline.py", o);
  BOOST_TEST(r.status == "ok", r.reason);
  BOOST_REQUIRE(r.percent_of_peak.has_value());
  BOOST_TEST(*r.percent_of_peak > 98.0);
  BOOST_TEST(*r.percent_of_peak <= 100.0);
}

BOOST_AUTO_TEST_CASE(faster_than_the_roofline_is_suspicious_with_the_figures) {
  NkiEvalOptions o = Options();
  o.measure = true;
  auto r = Run("too_fast.py", o);
  BOOST_TEST(r.status == "suspicious");
  BOOST_TEST(r.reason.find("faster than the memory roofline") != std::string::npos, r.reason);
  BOOST_TEST(r.reason.find("trn1: matmul ") != std::string::npos, r.reason);
  BOOST_TEST(r.reason.find("GB/s HBM") != std::string::npos, r.reason);
}

BOOST_AUTO_TEST_SUITE_END()

#include "evaluators/nki/nki_backend.hpp"

BOOST_AUTO_TEST_SUITE(nki_backend)

namespace {
NkiBackendOptions BackendOptions(const std::string& cores, const std::string& broken = "") {
  NkiBackendOptions o;
  auto c = NkiConfig::FromJson({{"python", "/usr/bin/python3"},
                                {"cores", cores},
                                {"runner_dir", kRunnerSrc + "/evaluators/nki"},
                                {"profiler", kRunnerSrc + "/tests/fakes/nki/bin/neuron-profile"},
                                {"work_dir", S().tmp.path()}},
                               "evaluators.nki");
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  o.config = *c;
  o.allow_test_stand_in = true;
  o.runner_env["PYTHONPATH"] = kRunnerSrc + "/tests/fakes/nki/python";
  if (!broken.empty()) o.runner_env["ACCELOPT_STAND_IN_BROKEN_CORE"] = broken;
  return o;
}

EvalRequest Request(const std::string& kernel) {
  EvalRequest r;
  r.backend = "nki";
  r.problem = S().silu.dir;
  r.source = ReadText(kRunnerSrc + "/tests/evaluators/nki_kernels/" + kernel);
  r.settings.timeout_s = 20;
  r.settings.seeds = {1, 2};
  return r;
}
}  // namespace

BOOST_AUTO_TEST_CASE(config_is_strict) {
  auto err = [](const json& j) {
    auto c = NkiConfig::FromJson(j, "evaluators.nki");
    BOOST_REQUIRE(!c.ok());
    return c.status().message();
  };
  // "python" left out is "auto": the newest versioned Neuron venv, found at start (nki_venv in nki_sdk_test.cpp).
  BOOST_TEST(NkiConfig::FromJson({{"cores", "0-1"}}, "evaluators.nki")->python == "auto");
  // "cores" left out is "auto" (neuron-ls at the daemon's start: nki_neuron_ls_test.cpp).
  BOOST_TEST(NkiConfig::FromJson({{"python", "p"}}, "evaluators.nki")->auto_cores());
  BOOST_TEST(err({{"python", "p"}, {"cores", "automatic"}}).find("or \"auto\"") != std::string::npos);
  BOOST_TEST(err({{"python", "p"}, {"cores", "1-0"}}).find("descending") != std::string::npos);
  BOOST_TEST(err({{"python", "p"}, {"cores", "0"}, {"generation", "trn9"}}).find("evaluators.nki.generation") !=
             std::string::npos);
  BOOST_TEST(err({{"python", 3}, {"cores", "0"}}).find("evaluators.nki.python: must be a non-empty string") !=
             std::string::npos);
  auto ok = NkiConfig::FromJson({{"python", "p"}, {"cores", "0-31"}, {"generation", "trn2"}}, "evaluators.nki");
  BOOST_REQUIRE(ok.ok());
  BOOST_TEST(ok->cores.size() == 32u);
}

BOOST_AUTO_TEST_CASE(a_crashed_core_is_checked_then_reused) {
  RequireNumpy();
  NkiBackend b(BackendOptions("6"));
  EvalResult crash = b.Evaluate(Request("crash.py"), nullptr);
  BOOST_TEST((crash.status == EvalStatus::kRuntimeError), crash.reason);
  EvalResult good = b.Evaluate(Request("good.py"), nullptr);  // health check first, passes
  BOOST_TEST((good.status == EvalStatus::kOk), good.reason + "\n" + good.error_text);
  BOOST_TEST(b.pool().Quarantined().empty());
  BOOST_REQUIRE(good.latency.has_value());
  BOOST_TEST(good.latency->samples_us.size() == 10u);  // the paper's 10 per round
  BOOST_TEST(good.profile.size() == 16u);
  BOOST_TEST(good.hardware["device"] == "test stand-in (NOT a Trainium measurement)");
  BOOST_TEST(good.hardware["neuron_core"] == 6);
}

BOOST_AUTO_TEST_CASE(a_core_that_fails_its_check_is_quarantined) {
  RequireNumpy();
  NkiBackend b(BackendOptions("8", "8"));
  EvalResult first = b.Evaluate(Request("crash.py"), nullptr);
  BOOST_TEST((first.status == EvalStatus::kRuntimeError), first.reason);
  EvalResult next = b.Evaluate(Request("good.py"), nullptr);
  BOOST_TEST((next.status == EvalStatus::kInternalError));
  BOOST_TEST(next.reason.find("every NeuronCore of the nki backend is quarantined (8)") != std::string::npos,
             next.reason);
  BOOST_TEST((b.pool().Quarantined() == std::vector<int>{8}));
  BOOST_TEST(!b.HealthCheck(8).ok());
}

BOOST_AUTO_TEST_SUITE_END()
