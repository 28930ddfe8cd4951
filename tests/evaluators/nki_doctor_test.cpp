// accelopt-eval doctor nki's checks and messages, on this machine (no
// Neuron SDK, no Trainium) and with the test-only stand-in on PYTHONPATH.
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "base/env.hpp"
#include "evaluators/nki/doctor.hpp"

using namespace accelopt;
using namespace accelopt::eval::nki;

namespace {
const std::string kDoctorSrc = ACCELOPT_SOURCE_DIR;

NkiConfig Config(const std::string& python) {
  auto c = NkiConfig::FromJson({{"python", python},
                                {"cores", "0-1"},
                                {"runner_dir", kDoctorSrc + "/evaluators/nki"},
                                {"profiler", "/nonexistent/neuron-profile"}},
                               "evaluators.nki");
  BOOST_REQUIRE(c.ok());
  return *c;
}

const DoctorCheck& Find(const std::vector<DoctorCheck>& checks, const std::string& name) {
  for (const auto& c : checks)
    if (c.name == name) return c;
  BOOST_FAIL("no check " + name);
  return checks.front();
}

bool HostHasNeuronDevices() {
  auto names = Env::Default()->ListDir("/dev");
  if (!names.ok()) return false;
  for (const auto& n : *names)
    if (n.rfind("neuron", 0) == 0) return true;
  return false;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(nki_doctor)

BOOST_AUTO_TEST_CASE(names_every_missing_piece_with_its_fix) {
  auto checks = RunDoctor(Config("/nonexistent/venv/bin/python"), Env::Default());
  const auto& py = Find(checks, "python");
  BOOST_TEST(!py.ok);
  BOOST_TEST(py.detail.find("/nonexistent/venv/bin/python") != std::string::npos, py.detail);
  BOOST_TEST(py.fix.find("set evaluators.nki.python") != std::string::npos);
  BOOST_TEST(Find(checks, "neuronxcc").skipped);
  const auto& prof = Find(checks, "profiler");
  BOOST_TEST(!prof.ok);
  BOOST_TEST(prof.fix.find("aws-neuronx-tools") != std::string::npos);
  if (!HostHasNeuronDevices()) {
    const auto& dev = Find(checks, "devices");
    BOOST_TEST(!dev.ok);
    BOOST_TEST(dev.detail == "no /dev/neuron* on this host");
    BOOST_TEST(dev.fix.find("aws-neuronx-dkms") != std::string::npos);
  }
  BOOST_TEST(Find(checks, "runner").ok, Find(checks, "runner").detail);
  BOOST_TEST(Find(checks, "kernel").skipped);
  const std::string text = FormatDoctor(checks);
  BOOST_TEST(text.find("MISSING python: /nonexistent/venv/bin/python") != std::string::npos, text);
  BOOST_TEST(text.find("        fix: install the Neuron SDK") != std::string::npos, text);
  BOOST_TEST(text.find("skipped kernel: not run: fix the checks above first") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(the_stand_in_is_not_the_sdk) {
  auto checks =
      RunDoctor(Config("/usr/bin/python3"), Env::Default(), {{"PYTHONPATH", kDoctorSrc + "/tests/fakes/nki/python"}});
  BOOST_TEST(Find(checks, "python").ok);
  const auto& cc = Find(checks, "neuronxcc");
  BOOST_TEST(!cc.ok);
  BOOST_TEST(cc.detail.find("test-only stand-in") != std::string::npos, cc.detail);
  // Without the stand-in, this machine's Python has no Neuron compiler at all.
  auto plain = RunDoctor(Config("/usr/bin/python3"), Env::Default());
  const auto& none = Find(plain, "neuronxcc");
  BOOST_TEST(!none.ok);
  BOOST_TEST(none.detail.find("neither neuronxcc.nki nor the nki package can be imported") != std::string::npos,
             none.detail);
  BOOST_TEST(none.detail.find("accelopt knows Neuron up to 2.27") != std::string::npos, none.detail);
  BOOST_TEST(none.detail.find("No module named 'neuronxcc'") != std::string::npos, none.detail);
  BOOST_TEST(none.fix.find("pip install neuronx-cc") != std::string::npos);
}

// The doctor says which SDK path and profiler it would use (here for the
// stand-in playing Neuron 2.29, which is still reported as not the SDK).
BOOST_AUTO_TEST_CASE(says_which_sdk_path_it_uses) {
  auto checks = RunDoctor(Config("/usr/bin/python3"), Env::Default(),
                          {{"PYTHONPATH", kDoctorSrc + "/tests/fakes/nki/python"}, {"ACCELOPT_STAND_IN_SDK", "2.29"}});
  const auto& sdk = Find(checks, "sdk");
  BOOST_TEST(sdk.detail.find("uses Neuron 2.29 (nki 0.3.0): the nki package path") != std::string::npos, sdk.detail);
  BOOST_TEST(sdk.detail.find("profiler neuron-explorer") != std::string::npos, sdk.detail);
  BOOST_TEST(!Find(checks, "neuronxcc").ok);  // the stand-in is never the SDK
  auto newer = RunDoctor(Config("/usr/bin/python3"), Env::Default(),
                         {{"PYTHONPATH", kDoctorSrc + "/tests/fakes/nki/python"}, {"ACCELOPT_STAND_IN_SDK", "2.35"}});
  BOOST_TEST(Find(newer, "sdk").detail.find("Neuron 2.35 (nki 0.9.0) is newer than any release accelopt knows") !=
                 std::string::npos,
             Find(newer, "sdk").detail);
}

BOOST_AUTO_TEST_SUITE_END()

#include <cstdlib>

#include "evaluators/nki/nkibench_import.hpp"
#include "tests/evaluators/nki_test_util.hpp"

BOOST_AUTO_TEST_SUITE(nki_dropin)

// The drop-in with the service: `systemd-analyze verify` says nothing
// (systemd 252 here; the unit's binary replaced by /bin/true, since acceloptd
// is not installed), and every ReadOnlyPaths= entry is optional ("-"): a
// missing path would stop the unit from starting.
BOOST_AUTO_TEST_CASE(the_drop_in_verifies_clean_and_its_paths_are_optional) {
  using namespace accelopt::eval::nki::testing;
  if (!Env::Default()->IsFile("/usr/bin/systemd-analyze")) {
    BOOST_TEST_MESSAGE("skipped: no systemd-analyze on this machine");
    return;
  }
  TempDir tmp;
  std::string unit = ReadText(kDoctorSrc + "/systemd/acceloptd.service");
  const size_t at = unit.find("ExecStart=");
  BOOST_REQUIRE(at != std::string::npos);
  unit.replace(at, unit.find('\n', at) - at, "ExecStart=/bin/true");
  WriteText(tmp.sub("acceloptd.service"), unit);
  const std::string dropin = ReadText(kDoctorSrc + "/systemd/acceloptd-nki.conf");
  WriteText(tmp.sub("acceloptd.service.d/nki.conf"), dropin);
  ProcessSpec p;
  p.argv = {"/usr/bin/systemd-analyze", "verify", "--man=no", tmp.sub("acceloptd.service")};
  p.env_set["SYSTEMD_UNIT_PATH"] = tmp.path() + ":";
  p.timeout = std::chrono::milliseconds(60000);
  auto r = Env::Default()->RunProcess(p);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->Succeeded(), r->Describe() + ": " + r->stderr_data);
  BOOST_TEST(r->stderr_data.empty(), r->stderr_data);
  // Not a literal unversioned venv path that must exist.
  size_t pos = 0;
  int entries = 0;
  while ((pos = dropin.find("\nReadOnlyPaths=", pos)) != std::string::npos) {
    pos += 15;
    const std::string line = dropin.substr(pos, dropin.find('\n', pos) - pos);
    size_t b = 0;
    while (b < line.size()) {
      const size_t e = std::min(line.find(' ', b), line.size());
      const std::string path = line.substr(b, e - b);
      if (!path.empty()) {
        ++entries;
        BOOST_TEST(path.front() == '-', "ReadOnlyPaths entry '" + path + "' is not optional");
      }
      b = e + 1;
    }
  }
  BOOST_TEST(entries > 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(nki_cli)

// accelopt-eval run on an imported nki problem, on this machine: the runner
// finds no Neuron SDK and says so. Even with the stand-in on the caller's
// PYTHONPATH the runner does not see it (its environment is cleared): a
// product binary cannot be made to report a stand-in's numbers.
BOOST_AUTO_TEST_CASE(run_without_the_sdk_says_so_and_never_reaches_the_stand_in) {
  using namespace accelopt::eval::nki::testing;
  TempDir tmp;
  const std::string imported = tmp.sub("suites/nki");
  ProcessSpec imp;
  imp.argv = {ACCELOPT_EVAL_PATH, "import", "nkibench", kFixture, "--out", imported};
  auto ir = Env::Default()->RunProcess(imp);
  BOOST_REQUIRE(ir.ok());
  BOOST_TEST(ir->exit_code == 0, ir->stderr_data);
  BOOST_TEST(ir->stdout_data.find("wrote " + imported + "/silu") != std::string::npos, ir->stdout_data);

  ProcessSpec run;
  run.argv = {ACCELOPT_EVAL_PATH,
              "run",
              "--problem",
              imported + "/silu",
              "--kernel",
              kDoctorSrc + "/tests/evaluators/nki_kernels/good.py",
              "--nki-python",
              "/usr/bin/python3",
              "--nki-runner-dir",
              kDoctorSrc + "/evaluators/nki",
              "-o",
              "json"};
  run.env_set["PYTHONPATH"] = kDoctorSrc + "/tests/fakes/nki/python";
  run.env_set["PATH"] = kDoctorSrc + "/tests/fakes/nki/bin:/usr/bin:/bin";
  run.timeout = std::chrono::milliseconds(60000);
  auto rr = Env::Default()->RunProcess(run);
  BOOST_REQUIRE(rr.ok());
  BOOST_TEST(rr->exit_code == 3, rr->stdout_data + rr->stderr_data);
  // Refused at start, naming what was found and what is supported.
  BOOST_TEST(rr->stderr_data.find("neither neuronxcc.nki nor the nki package can be imported") != std::string::npos,
             rr->stderr_data);
  BOOST_TEST(rr->stderr_data.find("accelopt knows Neuron up to 2.27") != std::string::npos, rr->stderr_data);
  BOOST_TEST(rr->stdout_data.find("stand-in (NOT") == std::string::npos);
}

// accelopt-eval run --nki-simulate: the CPU simulator path through the
// command (a wrapper interpreter puts the stand-in in place, as the daemon's
// tests do): it needs Neuron 2.29+, runs without neuron-ls or a device, and
// a stand-in result is still refused.
BOOST_AUTO_TEST_CASE(run_on_the_cpu_simulator) {
  using namespace accelopt::eval::nki::testing;
  TempDir tmp;
  const std::string imported = tmp.sub("suites/nki");
  ProcessSpec imp;
  imp.argv = {ACCELOPT_EVAL_PATH, "import", "nkibench", kFixture, "--out", imported};
  BOOST_REQUIRE(Env::Default()->RunProcess(imp)->exit_code == 0);
  auto run_at = [&](const std::string& release) {
    const std::string py = tmp.sub("python-" + release);
    WriteText(py, "#!/bin/sh\nPYTHONPATH=" + kDoctorSrc + "/tests/fakes/nki/python ACCELOPT_STAND_IN_SDK=" + release +
                      " exec /usr/bin/python3 \"$@\"\n");
    std::filesystem::permissions(py, std::filesystem::perms::owner_all);
    ProcessSpec run;
    run.argv = {ACCELOPT_EVAL_PATH,
                "run",
                "--problem",
                imported + "/silu",
                "--kernel",
                kDoctorSrc + "/tests/evaluators/nki_kernels/good_nki.py",
                "--nki-python",
                py,
                "--nki-runner-dir",
                kDoctorSrc + "/evaluators/nki",
                "--nki-simulate",
                "-o",
                "json"};
    run.env_set["PATH"] = "/nonexistent:/usr/bin:/bin";  // no neuron-ls needed
    run.timeout = std::chrono::milliseconds(60000);
    return *Env::Default()->RunProcess(run);
  };
  auto old = run_at("2.28");
  BOOST_TEST(old.exit_code == 3);
  BOOST_TEST(old.stderr_data.find("--nki-simulate needs the nki package's CPU simulator") != std::string::npos,
             old.stderr_data);
  auto sim = run_at("2.29");
  BOOST_TEST(sim.exit_code == 3, sim.stdout_data + sim.stderr_data);
  BOOST_TEST(sim.stderr_data.find("CPU simulator: correctness only, no time") != std::string::npos, sim.stderr_data);
  BOOST_TEST(sim.stdout_data.find("test-only Neuron SDK stand-in") != std::string::npos, sim.stdout_data);
}

BOOST_AUTO_TEST_SUITE_END()
