// The Neuron SDK's generations (evaluators/nki/sdk.hpp): versions to a
// release and a path, the refusal of what is not supported, the static
// check and the runner following the detected path, both profilers, and
// the stand-in's version gates (tests/fakes/nki: ACCELOPT_STAND_IN_SDK).
#include <boost/test/unit_test.hpp>

#include "base/env.hpp"
#include "evaluators/nki/evaluate.hpp"
#include "evaluators/nki/nki_backend.hpp"
#include "evaluators/nki/nki_config.hpp"
#include "evaluators/nki/nkibench_import.hpp"
#include "evaluators/nki/sdk.hpp"
#include "evaluators/nki/static_check.hpp"
#include "evaluators/nki/venv.hpp"
#include "evaluators/problem.hpp"
#include "tests/evaluators/nki_test_util.hpp"

using namespace accelopt;
using namespace accelopt::eval;
using namespace accelopt::eval::nki;
using namespace accelopt::eval::nki::testing;

namespace {

const std::string kSdkSrc = ACCELOPT_SOURCE_DIR;
const std::string kStandIn = kSdkSrc + "/tests/fakes/nki/python";

SdkVersions SdkBeta1Only() {
  SdkVersions v;
  v.neuronx_cc = "2.21.18209.0";
  v.neuronxcc_nki = true;
  return v;
}

SdkVersions SdkWithNki(const std::string& nki_version) {
  SdkVersions v = SdkBeta1Only();
  v.nki = nki_version;
  return v;
}

SdkVersions SdkProbe(const std::string& release, const std::string& dpkg = "/nonexistent/dpkg/status") {
  SdkProbeOptions o;
  o.python = "/usr/bin/python3";
  o.env["PYTHONPATH"] = kStandIn;
  if (!release.empty()) o.env["ACCELOPT_STAND_IN_SDK"] = release;
  o.dpkg_status = dpkg;
  return ProbeSdk(o, Env::Default());
}

struct SdkSiluSuite {
  TempDir tmp;
  Problem silu;
  SdkSiluSuite() {
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

SdkSiluSuite& SdkSuite() {
  static SdkSiluSuite s;
  return s;
}

NkiEvalOptions SdkEvalOptions(const std::string& release, const SdkChoice& sdk) {
  NkiEvalOptions o;
  o.runner.python = "/usr/bin/python3";
  o.runner.reference_python = "/usr/bin/python3";
  o.runner.runner_script = kSdkSrc + "/evaluators/nki/runner.py";
  o.runner.reference_script = kSdkSrc + "/evaluators/nki/reference_runner.py";
  o.runner.profiler = kSdkSrc + "/tests/fakes/nki/bin/" + sdk.profiler;
  o.runner.sdk_path = sdk.PathName();
  o.runner.env["PYTHONPATH"] = kStandIn;
  if (!release.empty()) o.runner.env["ACCELOPT_STAND_IN_SDK"] = release;
  o.runner.timeout = std::chrono::milliseconds(20000);
  o.timing.warmup = 1;
  o.timing.iterations = 3;
  o.normal_cases = 2;
  o.allow_test_stand_in = true;
  o.work_root = SdkSuite().tmp.path();
  return o;
}

NkiEvalOutcome SdkRun(const std::string& kernel, const NkiEvalOptions& o) {
  return EvaluateNki(SdkSuite().silu, SdkSuite().silu.reference_path,
                     ReadText(kSdkSrc + "/tests/evaluators/nki_kernels/" + kernel), 0, o, Env::Default(), nullptr);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nki_sdk)

BOOST_AUTO_TEST_CASE(component_versions_name_the_release) {
  BOOST_TEST(*ReleaseFromNki("0.1.0") == 27);
  BOOST_TEST(*ReleaseFromNki("0.2.0") == 28);
  BOOST_TEST(*ReleaseFromNki("0.3.0") == 29);
  BOOST_TEST(*ReleaseFromNki("0.7.0+abc") == 33);
  BOOST_TEST(!ReleaseFromNki("Beta 2").has_value());
  BOOST_TEST(*ReleaseFromTools("2.28.0.0") == 28);
  BOOST_TEST(*ReleaseFromTools("2.33.38.0") == 33);
  BOOST_TEST(*ReleaseFromRuntime("2.29.40.0") == 27);
  BOOST_TEST(*ReleaseFromRuntime("2.35.30.0") == 33);
  auto pkgs = ParseDpkgStatus(
      "Package: aws-neuronx-tools\nStatus: install ok installed\nVersion: 2.29.12.0\n\n"
      "Package: aws-neuronx-runtime-lib\nStatus: deinstall ok config-files\nVersion: 2.20.1.0\n\n"
      "Package: zlib1g\nStatus: install ok installed\nVersion: 1:1.2.13\n");
  BOOST_TEST(pkgs.at("aws-neuronx-tools") == "2.29.12.0");
  BOOST_TEST(!pkgs.count("aws-neuronx-runtime-lib"));  // removed: not installed
}

BOOST_AUTO_TEST_CASE(each_generation_gets_its_path_and_its_profiler) {
  auto paper = ChooseSdk(SdkBeta1Only());
  BOOST_REQUIRE(paper.ok());
  BOOST_TEST((paper->path == NkiPath::kBeta1));
  BOOST_TEST(paper->Release() == "2.27 or older");
  BOOST_TEST(paper->profiler == "neuron-profile");
  auto n27 = ChooseSdk(SdkWithNki("0.1.0"));  // both namespaces: the paper's path
  BOOST_REQUIRE(n27.ok());
  BOOST_TEST((n27->path == NkiPath::kBeta1));
  BOOST_TEST(n27->release_minor == 27);
  auto n28 = ChooseSdk(SdkWithNki("0.2.0"));
  BOOST_REQUIRE(n28.ok());
  BOOST_TEST((n28->path == NkiPath::kNki));
  BOOST_TEST(n28->profiler == "neuron-profile");  // last shipped in 2.28... supported to 2.28
  auto n29 = ChooseSdk(SdkWithNki("0.3.0"));
  BOOST_REQUIRE(n29.ok());
  BOOST_TEST(n29->profiler == "neuron-explorer");
  BOOST_TEST(n29->Describe().find("Neuron 2.29 (nki 0.3.0): the nki package path") != std::string::npos,
             n29->Describe());
  // From the tools when the interpreter says nothing exact.
  SdkVersions tools = SdkBeta1Only();
  tools.tools = "2.26.7.0";
  BOOST_TEST(ChooseSdk(tools)->release_minor == 26);
}

// Chosen by capability: 2.34 is known and starts; a newer release (or a
// numbering accelopt does not know) starts with a warning naming what was
// probed; only "nothing of NKI imports" or 2.28+ tools without the nki
// package are refused, naming the cause.
BOOST_AUTO_TEST_CASE(newer_releases_start_with_a_warning_and_only_the_unrunnable_is_refused) {
  auto n34 = ChooseSdk(SdkWithNki("0.8.0"));
  BOOST_REQUIRE_MESSAGE(n34.ok(), n34.status().ToString());
  BOOST_TEST(n34->release_minor == 34);
  BOOST_TEST(n34->warnings.empty());
  BOOST_TEST(n34->lnc_call == "env");
  BOOST_TEST(n34->inspect_warmup);
  auto n35 = ChooseSdk(SdkWithNki("0.9.0"));
  BOOST_REQUIRE(n35.ok());
  BOOST_TEST((n35->path == NkiPath::kNki));
  BOOST_TEST(n35->newer_than_known);
  BOOST_REQUIRE(!n35->warnings.empty());
  BOOST_TEST(
      n35->warnings[0].find("Neuron 2.35 (nki 0.9.0) is newer than any release accelopt knows") != std::string::npos,
      n35->warnings[0]);
  BOOST_TEST(n35->warnings[0].find("the nki package imports") != std::string::npos, n35->warnings[0]);
  auto odd = ChooseSdk(SdkWithNki("banana"));
  BOOST_REQUIRE(odd.ok());
  BOOST_TEST(odd->warnings[0].find("follows no numbering accelopt knows") != std::string::npos);
  SdkVersions no_nki = SdkBeta1Only();
  no_nki.tools = "2.29.0.0";  // a 2.29 host whose venv lacks the nki package
  no_nki.nki_import_error = "ModuleNotFoundError: No module named 'nki'";
  auto missing = ChooseSdk(no_nki);
  BOOST_REQUIRE(!missing.ok());
  BOOST_TEST(missing.status().message().find("only with the nki package") != std::string::npos,
             missing.status().message());
  BOOST_TEST(missing.status().message().find("No module named 'nki'") != std::string::npos);
  BOOST_TEST(!ChooseSdk(SdkVersions{}).ok());
  // The LNC call follows the release: brackets on 2.28..2.32, the variable from 2.33.
  BOOST_TEST(ChooseSdk(SdkWithNki("0.5.0"))->lnc_call == "bracket");  // 2.31
  BOOST_TEST(!ChooseSdk(SdkWithNki("0.5.0"))->inspect_warmup);
  BOOST_TEST(ChooseSdk(SdkWithNki("0.7.0"))->lnc_call == "env");  // 2.33
  BOOST_TEST(ChooseSdk(SdkBeta1Only())->lnc_call == "compile_flag");
}

BOOST_AUTO_TEST_CASE(the_stand_in_is_probed_like_the_sdk_with_its_version_gates) {
  SdkVersions paper = SdkProbe("");
  BOOST_TEST(paper.stand_in);
  BOOST_TEST(paper.neuronxcc_nki);
  BOOST_TEST(!paper.nki.has_value());
  SdkVersions v28 = SdkProbe("2.28");
  BOOST_REQUIRE(v28.nki.has_value());
  BOOST_TEST(*v28.nki == "0.2.0");
  BOOST_TEST((ChooseSdk(v28)->path == NkiPath::kNki));
  SdkVersions v34 = SdkProbe("2.34");
  BOOST_TEST(!v34.neuronxcc_nki);  // the namespace is gone
  BOOST_TEST(v34.neuronxcc_import_error.find("removed the neuronxcc.nki namespace") != std::string::npos,
             v34.neuronxcc_import_error);
  BOOST_TEST((ChooseSdk(v34)->path == NkiPath::kNki));
  // dpkg's status is read too.
  TempDir tmp;
  WriteText(tmp.sub("status"), "Package: aws-neuronx-tools\nStatus: install ok installed\nVersion: 2.30.1.0\n");
  BOOST_TEST(*SdkProbe("2.30", tmp.sub("status")).tools == "2.30.1.0");
  // ResolveSdk fills the config and says which path and profiler.
  NkiConfig c;
  c.python = "/usr/bin/python3";
  std::string how;
  BOOST_REQUIRE(
      ResolveSdk(&c, Env::Default(), {{"PYTHONPATH", kStandIn}, {"ACCELOPT_STAND_IN_SDK", "2.30"}}, &how).ok());
  BOOST_TEST(c.sdk.PathName() == "nki");
  BOOST_TEST(c.ProfilerCommand() == "neuron-explorer");
  BOOST_TEST(how.find("Neuron 2.30") != std::string::npos, how);
}

BOOST_AUTO_TEST_CASE(the_static_check_follows_the_generation) {
  const std::string beta1 = ReadText(kSdkSrc + "/tests/evaluators/nki_kernels/good.py");
  const std::string beta2 = ReadText(kSdkSrc + "/tests/evaluators/nki_kernels/good_nki.py");
  BOOST_TEST(CheckKernelSource(beta1, NkiPath::kBeta1).ok());
  BOOST_TEST(CheckKernelSource(beta2, NkiPath::kNki).ok());
  Status refused = CheckKernelSource(beta1, NkiPath::kNki);
  BOOST_TEST(refused.code() == Code::kPermissionDenied);
  BOOST_TEST(refused.message().find("compile error from Neuron 2.28") != std::string::npos, refused.message());
  BOOST_TEST(refused.message().find("does not migrate Beta 1 kernels") != std::string::npos, refused.message());
  BOOST_TEST(!CheckKernelSource("from neuronxcc import nki\n", NkiPath::kNki).ok());
  Status other = CheckKernelSource(beta2, NkiPath::kBeta1);
  BOOST_TEST(other.message().find("compiled with neuronxcc.nki") != std::string::npos, other.message());
}

// Neuron 2.28: the nki package path end to end (nki.jit standalone, the
// runtime's inspect folder for the artifacts), timed with neuron-profile.
BOOST_AUTO_TEST_CASE(a_2_28_host_runs_nki_package_kernels_and_migrates_beta1_ones) {
  auto sdk = ChooseSdk(SdkProbe("2.28"));
  BOOST_REQUIRE(sdk.ok());
  NkiEvalOptions o = SdkEvalOptions("2.28", *sdk);
  auto r = SdkRun("good_nki.py", o);
  BOOST_TEST(r.status == "ok", r.reason + "\n" + r.runner_stderr);
  BOOST_REQUIRE(r.timing.has_value());
  BOOST_TEST(r.timing->latency_s == 0.002, boost::test_tools::tolerance(0.01));
  // A Beta 1 kernel is migrated (migrate.hpp) and runs on the nki path.
  auto beta1 = SdkRun("good.py", o);
  BOOST_TEST(beta1.status == "ok", beta1.reason + "\n" + beta1.runner_stderr);
  BOOST_TEST(beta1.kernel_path == "nki");
  BOOST_TEST(!beta1.migration.empty());
}

// Neuron 2.30: only neuron-explorer exists; its summary has several
// members, out of sorted order.
BOOST_AUTO_TEST_CASE(a_2_30_host_is_timed_with_neuron_explorer_only) {
  auto sdk = ChooseSdk(SdkProbe("2.30"));
  BOOST_REQUIRE(sdk.ok());
  BOOST_TEST(sdk->profiler == "neuron-explorer");
  NkiEvalOptions o = SdkEvalOptions("2.30", *sdk);
  auto r = SdkRun("good_nki.py", o);
  BOOST_TEST(r.status == "ok", r.reason + "\n" + r.runner_stderr);
  BOOST_REQUIRE(r.profile.has_value());
  BOOST_TEST(r.profile->kernel == "summary");
  BOOST_TEST(r.stand_in);
  o.runner.profiler = kSdkSrc + "/tests/fakes/nki/bin/neuron-profile";  // not shipped from 2.30
  auto old = SdkRun("good_nki.py", o);
  BOOST_TEST(old.status == "internal_error");
  BOOST_TEST(old.reason.find("neuron-profile failed") != std::string::npos, old.reason);
}

// The documented quirk: with save_trace_name the NEFF is left as file.neff
// in the working directory; the runner moves it to the name the judge asked for.
BOOST_AUTO_TEST_CASE(the_file_neff_quirk_is_handled) {
  auto sdk = ChooseSdk(SdkProbe(""));
  BOOST_REQUIRE(sdk.ok());
  NkiEvalOptions o = SdkEvalOptions("", *sdk);
  o.runner.env["ACCELOPT_STAND_IN_FILE_NEFF"] = "1";
  auto r = SdkRun("good.py", o);
  BOOST_TEST(r.status == "ok", r.reason + "\n" + r.runner_stderr);
  BOOST_TEST(r.timing.has_value());
}

// trn2 at LNC=2: the judge compiles for the runtime's config and passes it;
// the stand-in's runtime refuses a NEFF of another LNC, as the docs say
// the real one does.
BOOST_AUTO_TEST_CASE(the_logical_core_config_reaches_compiler_and_runtime_alike) {
  auto sdk = ChooseSdk(SdkProbe(""));
  BOOST_REQUIRE(sdk.ok());
  NkiEvalOptions o = SdkEvalOptions("", *sdk);
  o.runner.lnc = 2;
  auto r = SdkRun("good.py", o);
  BOOST_TEST(r.status == "ok", r.reason + "\n" + r.runner_stderr);
  ProcessSpec p;
  p.argv = {"/usr/bin/python3", "-c",
            "import neuronxcc.nki as nki\n"
            "nki.baremetal(lambda: 0, additional_compile_opt='--disable-dge --logical-nc-config=1')()\n"};
  p.env_set = {{"PYTHONPATH", kStandIn}, {"NEURON_LOGICAL_NC_CONFIG", "2"}};
  auto mismatch = Env::Default()->RunProcess(p);
  BOOST_REQUIRE(mismatch.ok());
  BOOST_TEST(!mismatch->Succeeded());
  BOOST_TEST(mismatch->stderr_data.find(
                 "compiled for logical-nc-config=1, the runtime's NEURON_LOGICAL_NC_CONFIG is 2") != std::string::npos,
             mismatch->stderr_data);
}

// evaluators.nki.python "auto": the newest versioned Deep Learning AMI
// venv (the drop-in and the defaults named an unversioned one that the
// AMIs do not have).
BOOST_AUTO_TEST_CASE(the_newest_versioned_venv_is_found) {
  TempDir opt;
  for (const char* v : {"aws_neuronx_venv_pytorch", "aws_neuronx_venv_pytorch_2_7", "aws_neuronx_venv_pytorch_2_9",
                        "aws_neuronx_venv_pytorch_2_10_nxd_training", "aws_neuronx_venv_jax_0_9"})
    WriteText(opt.sub(std::string(v) + "/bin/python"), "");
  WriteText(opt.sub("aws_neuronx_venv_pytorch_2_11/README"), "");  // no interpreter: skipped
  auto py = FindNeuronVenvPython(Env::Default(), opt.path());
  BOOST_REQUIRE_MESSAGE(py.ok(), py.status().ToString());
  BOOST_TEST(*py == opt.sub("aws_neuronx_venv_pytorch_2_10_nxd_training/bin/python"));
  NkiConfig c;
  BOOST_TEST(c.python == "auto");
  BOOST_REQUIRE(ResolvePython(&c, Env::Default(), opt.path()).ok());
  BOOST_TEST(c.python == *py);
  TempDir empty;
  auto none = FindNeuronVenvPython(Env::Default(), empty.path());
  BOOST_TEST(none.status().code() == Code::kNotFound);
  BOOST_TEST(none.status().message().find("aws_neuronx_venv_pytorch*/bin/python") != std::string::npos);
}

// The health check's identity kernel is written in the host's NKI
// language: on a 2.29 host (nki package) it passes through the nki path.
BOOST_AUTO_TEST_CASE(the_health_check_speaks_the_hosts_nki_language) {
  for (const std::string release : {"", "2.29"}) {
    NkiBackendOptions o;
    o.config.python = "/usr/bin/python3";
    o.config.cores = {0};
    o.config.cores_spec = "0";
    o.config.runner_dir = kSdkSrc + "/evaluators/nki";
    o.config.work_dir = SdkSuite().tmp.path();
    o.runner_env = {{"PYTHONPATH", kStandIn}};
    if (!release.empty()) o.runner_env["ACCELOPT_STAND_IN_SDK"] = release;
    o.allow_test_stand_in = true;
    BOOST_REQUIRE(ResolveSdk(&o.config, Env::Default(), o.runner_env).ok());
    BOOST_TEST(o.config.sdk.PathName() == (release.empty() ? "neuronxcc" : "nki"));
    NkiBackend b(o);
    Status st = b.HealthCheck(0);
    BOOST_TEST(st.ok(), release + ": " + st.message());
  }
  BOOST_TEST(std::string(IdentityKernel(NkiPath::kNki)).find("import nki\n") != std::string::npos);
}

// The CPU simulator (nki.simulate, Neuron 2.29+): correctness only, no
// time, labelled; a wrong kernel is still wrong; before 2.29 there is none.
BOOST_AUTO_TEST_CASE(the_cpu_simulator_checks_correctness_only_and_says_so) {
  auto sdk = ChooseSdk(SdkProbe("2.29"));
  BOOST_REQUIRE(sdk.ok());
  NkiEvalOptions o = SdkEvalOptions("2.29", *sdk);
  o.runner.simulate = true;
  o.runner.profiler = "/nonexistent/profiler";  // never run
  auto r = SdkRun("good_nki.py", o);
  BOOST_TEST(r.status == "ok", r.reason + "\n" + r.runner_stderr);
  BOOST_TEST(!r.timing.has_value());
  BOOST_TEST(!r.percent_of_peak.has_value());
  BOOST_TEST(r.ToJson()["simulated"] == true);
  NkiEvalOptions old = SdkEvalOptions("2.28", *ChooseSdk(SdkProbe("2.28")));
  old.runner.simulate = true;
  auto none = SdkRun("good_nki.py", old);
  BOOST_TEST(none.status == "internal_error");
  BOOST_TEST(none.reason.find("has no nki.simulate") != std::string::npos, none.reason);
}

BOOST_AUTO_TEST_SUITE_END()
