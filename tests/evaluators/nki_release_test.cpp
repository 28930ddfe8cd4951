// Issue 38: the backend against the stand-in playing each Neuron release a
// Trainium host can have (2.26, 2.29, 2.31, 2.33, 2.34; trn1 and trn2
// neuron-ls layouts where NKI runs there): chosen by capability, an
// NKIBench baseline (neuronxcc.nki) timed through the backend (as it is or
// migrated), `doctor nki` yes only where a timed evaluation works, with
// fixes that name the cause; the Beta 1 -> nki migration; and the stand-in
// holding to the documented runtime behaviour (inspect variables read once,
// the LNC mismatch) so that the old ways fail.
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "base/env.hpp"
#include "evaluators/nki/doctor.hpp"
#include "evaluators/nki/migrate.hpp"
#include "evaluators/nki/nki_backend.hpp"
#include "evaluators/nki/nkibench_import.hpp"
#include "evaluators/nki/sdk.hpp"
#include "tests/evaluators/nki_test_util.hpp"

using namespace accelopt;
using namespace accelopt::eval;
using namespace accelopt::eval::nki;
using namespace accelopt::eval::nki::testing;
namespace fs = std::filesystem;

namespace {

const std::string kSrc = ACCELOPT_SOURCE_DIR;

// A host as the stand-in plays it: a bin folder (neuron-ls answering with a
// layout fixture, both profilers), a /dev folder with a neuron device, the
// NKIBench fixture imported.
struct StandInHost {
  TempDir tmp;
  std::string bin, dev, suite;
  std::map<std::string, std::string> env;
  StandInHost(const std::string& release, const std::string& layout) {
    bin = tmp.sub("bin");
    dev = tmp.sub("dev");
    fs::create_directories(bin);
    fs::create_directories(dev);
    WriteText(dev + "/neuron0", "");
    for (const char* f : {"neuron-ls", "neuron-profile", "neuron-explorer", "stand_in_summary.py"})
      fs::create_symlink(kSrc + "/tests/fakes/nki/bin/" + f, bin + "/" + f);
    WriteText(bin + "/neuron-ls.json", ReadText(kSrc + "/tests/evaluators/nki_neuron_ls/" + layout));
    if (release == "2.34") WriteText(bin + "/neuron-ls.2.34", "");  // neuron-ls runs with a clean environment
    env = {{"PYTHONPATH", kSrc + "/tests/fakes/nki/python"},
           {"ACCELOPT_STAND_IN_SDK", release},
           {"PATH", bin + ":/usr/bin:/bin"}};
    ImportOptions o;
    o.nkibench_dir = kFixture;
    o.out_dir = tmp.sub("suites/nki");
    auto r = ImportNkiBench(o, Env::Default());
    BOOST_REQUIRE_MESSAGE(r.ok(), r.status().ToString());
    suite = o.out_dir;
  }
  NkiConfig Config(int lnc) const {
    NkiConfig c;
    c.python = "/usr/bin/python3";
    c.reference_python = "/usr/bin/python3";
    c.runner_dir = kSrc + "/evaluators/nki";
    c.work_dir = tmp.path();
    c.cores = {0};
    c.cores_spec = "0";
    c.lnc = lnc;
    c.lnc_spec = std::to_string(lnc);
    c.generation = lnc == 2 ? "trn2" : "trn1";
    return c;
  }
  EvalResult RunBaseline(const NkiConfig& c, const std::string& problem) const {
    NkiBackendOptions o;
    o.config = c;
    o.root = suite;
    o.runner_env = env;
    o.allow_test_stand_in = true;
    NkiBackend b(o);
    EvalRequest req;
    req.problem = problem;
    req.source = ReadText(suite + "/" + problem + "/baseline.py");
    req.settings.timeout_s = 60;
    return b.Evaluate(req, nullptr);
  }
};

struct Case {
  std::string release, layout;
  int lnc;
};

// Where the docs say NKI runs: the NKI FAQ of 2.29+ lists Trn2/Trn3 only,
// so trn1 is played with the paper's 2.26 alone.
const std::vector<Case> kCases = {{"2.26", "trn1_2devices.json", 1}, {"2.26", "trn2_lnc2.json", 2},
                                  {"2.29", "trn2_lnc2.json", 2},     {"2.31", "trn2_lnc2.json", 2},
                                  {"2.33", "trn2_lnc2.json", 2},     {"2.34", "trn2_lnc2.json", 2}};

const DoctorCheck& Check(const std::vector<DoctorCheck>& checks, const std::string& name) {
  for (const auto& c : checks)
    if (c.name == name) return c;
  static DoctorCheck none;
  BOOST_FAIL("no check " + name);
  return none;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nki_releases)

// Every release starts, the silu baseline of the NKIBench fixture
// (neuronxcc.nki) gets a latency from the profile, and the doctor says yes
// after its own timed evaluation at the slot's LNC.
BOOST_AUTO_TEST_CASE(each_release_times_the_nkibench_baseline_and_the_doctor_agrees) {
  for (const Case& k : kCases) {
    BOOST_TEST_CONTEXT(k.release << " " << k.layout) {
      StandInHost host(k.release, k.layout);
      NkiConfig c = host.Config(k.lnc);
      std::string how;
      Status st = ResolveSdk(&c, Env::Default(), host.env, &how);
      BOOST_REQUIRE_MESSAGE(st.ok(), st.message());
      BOOST_TEST(c.sdk.warnings.empty(), how);
      const bool beta1_host = k.release == "2.26";
      BOOST_TEST(c.sdk.PathName() == (beta1_host ? "neuronxcc" : "nki"));
      EvalResult r = host.RunBaseline(c, "silu");
      BOOST_TEST((r.status == EvalStatus::kOk), r.reason + "\n" + r.error_text);
      BOOST_REQUIRE(r.latency.has_value());
      BOOST_TEST(r.latency->mean_us == 1000.0, boost::test_tools::tolerance(0.01));  // the stand-in's 1 ms
      BOOST_TEST(r.hardware["logical_nc_config"] == k.lnc);
      BOOST_TEST(r.hardware["kernel_path"] == (beta1_host ? "neuronxcc" : "nki"));
      if (!beta1_host) BOOST_TEST(r.hardware.contains("migration"), r.hardware.dump());
      // The doctor, with neuron-ls deciding cores and LNC.
      NkiConfig dc = host.Config(k.lnc);
      dc.cores.clear();
      dc.cores_spec = "auto";
      dc.lnc_spec = "auto";
      DoctorOptions o;
      o.dev_dir = host.dev;
      o.allow_test_stand_in = true;
      o.dpkg_status = "/nonexistent/status";
      auto checks = RunDoctor(dc, Env::Default(), host.env, o);
      const DoctorCheck& kernel = Check(checks, "kernel");
      BOOST_TEST(kernel.ok, FormatDoctor(checks));
      BOOST_TEST(kernel.detail.find("timed on NeuronCore 0 at LNC=" + std::to_string(k.lnc)) != std::string::npos,
                 kernel.detail);
    }
  }
}

// 2.34: neuron-ls has no --json-output; the replacement is read.
BOOST_AUTO_TEST_CASE(neuron_ls_of_2_34_is_read_through_its_replacement_flag) {
  StandInHost host("2.34", "trn2_lnc2.json");
  DoctorOptions o;
  o.dev_dir = host.dev;
  o.allow_test_stand_in = true;
  NkiConfig dc = host.Config(2);
  dc.cores_spec = "auto";
  dc.lnc_spec = "auto";
  auto checks = RunDoctor(dc, Env::Default(), host.env, o);
  BOOST_TEST(Check(checks, "neuron-ls").detail == "neuron-ls --output-format json: ran",
             Check(checks, "neuron-ls").detail);
  BOOST_TEST(Check(checks, "cores").ok, Check(checks, "cores").detail);
}

// The doctor says no where a timed evaluation fails, naming the cause: a
// configured LNC that neuron-ls contradicts; a profiler summary it cannot read.
BOOST_AUTO_TEST_CASE(the_doctor_says_no_with_the_real_cause) {
  StandInHost host("2.31", "trn2_lnc2.json");
  DoctorOptions o;
  o.dev_dir = host.dev;
  o.allow_test_stand_in = true;
  NkiConfig dc = host.Config(1);  // logical_nc_config "1" on an LNC=2 host
  dc.cores_spec = "auto";
  auto checks = RunDoctor(dc, Env::Default(), host.env, o);
  BOOST_TEST(!Check(checks, "cores").ok);
  BOOST_TEST(Check(checks, "cores").fix.find("logical_nc_config") != std::string::npos, Check(checks, "cores").fix);
  BOOST_TEST(Check(checks, "kernel").skipped);
  auto env = host.env;
  env["ACCELOPT_STAND_IN_SUMMARY"] = "unknown";
  dc.lnc_spec = "auto";
  auto bad = RunDoctor(dc, Env::Default(), env, o);
  const DoctorCheck& kernel = Check(bad, "kernel");
  BOOST_TEST(!kernel.ok);
  BOOST_TEST(kernel.detail.find("an unknown summary layout") != std::string::npos, kernel.detail);
  BOOST_TEST(kernel.fix.find("layout") != std::string::npos, kernel.fix);
}

// An unknown summary layout is refused once, at start (daemon and
// accelopt-eval run call StartupTimingCheck), not per evaluation.
BOOST_AUTO_TEST_CASE(an_unknown_summary_layout_is_refused_at_start) {
  StandInHost host("2.33", "trn2_lnc2.json");
  NkiBackendOptions o;
  o.config = host.Config(2);
  o.runner_env = host.env;
  o.allow_test_stand_in = true;
  BOOST_REQUIRE(ResolveSdk(&o.config, Env::Default(), o.runner_env).ok());
  {
    NkiBackend good(o);
    Status st = good.StartupTimingCheck();
    BOOST_TEST(st.ok(), st.message());
  }
  o.runner_env["ACCELOPT_STAND_IN_SUMMARY"] = "unknown";
  NkiBackend bad(o);
  Status st = bad.StartupTimingCheck();
  BOOST_TEST((st.code() == Code::kFailedPrecondition), st.ToString());
  BOOST_TEST(st.message().find("an unknown summary layout") != std::string::npos, st.message());
  BOOST_TEST(st.message().find("every timed evaluation would fail the same way") != std::string::npos);
}

// The old runner's ways fail against the stand-in as the docs say they
// would: a plain call at LNC=2 on 2.31 (the LNC must come by brackets), and
// inspect variables set in os.environ after the runtime started.
BOOST_AUTO_TEST_CASE(the_stand_in_fails_the_undocumented_ways) {
  StandInHost host("2.31", "trn2_lnc2.json");
  NkiConfig c = host.Config(2);
  BOOST_REQUIRE(ResolveSdk(&c, Env::Default(), host.env).ok());
  BOOST_TEST(c.sdk.lnc_call == "bracket");
  c.sdk.lnc_call = "env";  // what the runner did before
  EvalResult plain = host.RunBaseline(c, "silu");
  BOOST_TEST((plain.status != EvalStatus::kOk));
  BOOST_TEST((plain.reason + plain.error_text).find("NEURON_LOGICAL_NC_CONFIG is 2") != std::string::npos,
             plain.reason + plain.error_text);
  // Inspect variables set after import capture nothing.
  ProcessSpec p;
  p.argv = {"/usr/bin/python3", "-c",
            "import os, nki, numpy as np\n"
            "os.environ['NEURON_RT_INSPECT_ENABLE'] = '1'\n"
            "os.environ['NEURON_RT_INSPECT_DEVICE_PROFILE'] = '1'\n"
            "os.environ['NEURON_RT_INSPECT_OUTPUT_DIR'] = "
            "'" +
                host.tmp.sub("late") +
                "'\n"
                "k = nki.jit(lambda x: x)\n"
                "k[1](np.zeros(4)); k[1](np.zeros(4))\n"
                "print(os.path.exists('" +
                host.tmp.sub("late") + "'))\n"};
  p.env_set = host.env;
  p.env_set["NEURON_LOGICAL_NC_CONFIG"] = "1";
  auto r = Env::Default()->RunProcess(p);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->stdout_data.find("False") != std::string::npos, r->stdout_data + r->stderr_data);
}

// A kernel the migration cannot rewrite runs as it is where neuronxcc.nki
// still compiles (the 2.28/2.29 notes' "postponed" reading), and is refused
// with the reason where it does not (the 2.34 announcement's reading).
BOOST_AUTO_TEST_CASE(either_reading_of_the_docs_is_served) {
  for (const std::string reading : {"postponed", "strict"}) {
    BOOST_TEST_CONTEXT(reading) {
      StandInHost host("2.29", "trn2_lnc2.json");
      host.env["ACCELOPT_STAND_IN_BETA1_READING"] = reading;
      NkiConfig c = host.Config(2);
      BOOST_REQUIRE(ResolveSdk(&c, Env::Default(), host.env).ok());
      BOOST_TEST(c.sdk.beta1_available);
      // add_rmsnorm_matmul loads inside expressions: not migratable.
      EvalResult r = host.RunBaseline(c, "add_rmsnorm_matmul");
      if (reading == "postponed") {
        BOOST_TEST((r.status == EvalStatus::kOk), r.reason + "\n" + r.error_text);
        BOOST_TEST(r.hardware["kernel_path"] == "neuronxcc");
      } else {
        BOOST_TEST((r.status == EvalStatus::kCompileError), r.reason);
        BOOST_TEST((r.reason + r.error_text).find("compile error from Neuron 2.28") != std::string::npos, r.reason);
      }
      // The migratable silu runs migrated under both readings.
      EvalResult silu = host.RunBaseline(c, "silu");
      BOOST_TEST((silu.status == EvalStatus::kOk), silu.reason + "\n" + silu.error_text);
      BOOST_TEST(silu.hardware["kernel_path"] == "nki");
    }
  }
  // 2.34: neuronxcc.nki is gone; the unmigratable baseline is refused, saying why.
  StandInHost host("2.34", "trn2_lnc2.json");
  NkiConfig c = host.Config(2);
  BOOST_REQUIRE(ResolveSdk(&c, Env::Default(), host.env).ok());
  BOOST_TEST(!c.sdk.beta1_available);
  EvalResult r = host.RunBaseline(c, "add_rmsnorm_matmul");
  BOOST_TEST((r.status == EvalStatus::kStaticCheckFailed), r.reason);
  BOOST_TEST(r.reason.find("cannot be migrated") != std::string::npos, r.reason);
  BOOST_TEST(r.reason.find("What features in neuronxcc.nki.* are not available in nki.*?") != std::string::npos,
             r.reason);
}

// The probe waits for a slow cold import (its default is minutes) and
// reads its answer past lines printed before it; a probe that times out
// says so, and the doctor's fix names that cause, not a missing compiler.
BOOST_AUTO_TEST_CASE(the_probe_survives_a_slow_talkative_import_and_names_a_timeout) {
  StandInHost host("2.33", "trn2_lnc2.json");
  // A wrapper interpreter that prints on the real stdout before Python starts.
  const std::string py = host.tmp.sub("python-talkative");
  WriteText(py,
            "#!/bin/sh\necho 'Neuron SDK banner'\necho '{\"not\": \"the answer\"}'\nexec /usr/bin/python3 \"$@\"\n");
  fs::permissions(py, fs::perms::owner_all);
  SdkProbeOptions o;
  o.python = py;
  o.env = host.env;
  o.env["ACCELOPT_STAND_IN_COLD_IMPORT_S"] = "2";
  o.dpkg_status = "/nonexistent/status";
  BOOST_TEST(o.timeout_ms >= 300000);
  SdkVersions v = ProbeSdk(o, Env::Default());
  BOOST_TEST(v.python_error.empty(), v.python_error);
  BOOST_REQUIRE(v.nki.has_value());
  BOOST_TEST(*v.nki == "0.7.0");
  BOOST_TEST(v.nki_jit);
  BOOST_TEST(v.profilers.size() == 1);  // 2.33: neuron-explorer only
  // Too short a wait: a timeout, named as such.
  o.timeout_ms = 500;
  SdkVersions slow = ProbeSdk(o, Env::Default());
  BOOST_TEST(slow.python_error.find("a cold first import can take minutes") != std::string::npos, slow.python_error);
  BOOST_TEST(!ChooseSdk(slow).ok());
  // trn1 on a 2.29+ nki path: started, with the FAQ's warning.
  NkiConfig c = host.Config(1);
  c.generation = "trn1";
  BOOST_REQUIRE(ResolveSdk(&c, Env::Default(), host.env).ok());
  BOOST_REQUIRE(!c.sdk.warnings.empty());
  BOOST_TEST(c.sdk.warnings.back().find("lists Trn2 and Trn3 only") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(nki_migration)

BOOST_AUTO_TEST_CASE(the_documented_rewrites_are_made_and_listed) {
  const std::string silu = ReadText(kFixture + "/kernels/silu_small.py");
  BOOST_TEST(UsesNeuronxccNki(silu));
  auto m = MigrateBeta1ToNki(silu);
  BOOST_REQUIRE_MESSAGE(m.ok(), m.status().ToString());
  BOOST_TEST(!UsesNeuronxccNki(m->source), m->source);
  BOOST_TEST(m->source.find("import nki\n") != std::string::npos, m->source);
  BOOST_TEST(m->source.find("import nki.language as nl\n") != std::string::npos, m->source);
  BOOST_TEST(m->source.find("import nki.isa as nisa\n") != std::string::npos, m->source);
  BOOST_TEST(m->source.find("        tile = nl.ndarray((x[:, t, :]).shape, dtype=(x[:, t, :]).dtype, buffer=nl.sbuf)\n"
                            "        nisa.dma_copy(dst=tile, src=x[:, t, :])\n") != std::string::npos,
             m->source);
  BOOST_TEST(
      m->source.find("nisa.dma_copy(dst=out[:, t, :], src=nl.multiply(tile, nl.sigmoid(tile)))") != std::string::npos,
      m->source);
  BOOST_REQUIRE(m->rewrites.size() == 5);
  BOOST_TEST(m->rewrites[0] ==
             "line 2: import neuronxcc.nki as nki -> import nki (2.34 announcement, 'What you must do')");
}

BOOST_AUTO_TEST_CASE(what_has_no_documented_equivalent_is_refused_with_the_section) {
  auto why = [](const std::string& src) {
    auto m = MigrateBeta1ToNki(src);
    BOOST_REQUIRE(!m.ok());
    BOOST_TEST((m.status().code() == Code::kFailedPrecondition));
    return m.status().message();
  };
  const std::string head = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n";
  BOOST_TEST(why(head + "y = nl.add(nl.load(a), 1)\n").find("inside an expression") != std::string::npos);
  BOOST_TEST(why(head + "i = nl.arange(128)\n").find("Update indexing syntax for mgrid and arange") !=
             std::string::npos);
  BOOST_TEST(why(head + "nl.store(o, value=v, mask=m)\n").find("Deprecation of masking") != std::string::npos);
  BOOST_TEST(why(head + "t = nl.ndarray((2, nl.par_dim(128), 4))\n").find("Translation of Block Dimensions") !=
             std::string::npos);
  BOOST_TEST(why(head + "@nki.jit(mode='trace')\ndef f(x):\n    return x\n").find("sub-kernels") != std::string::npos);
  BOOST_TEST(why("import neuronxcc.nki.typing as nt\n").find("documented replacement") != std::string::npos);
  // Not a Beta 1 kernel: nothing to migrate, nothing changed.
  auto plain = MigrateBeta1ToNki("import nki\nimport nki.language as nl\n");
  BOOST_REQUIRE(plain.ok());
  BOOST_TEST(plain->rewrites.empty());
}

BOOST_AUTO_TEST_SUITE_END()
