// accelopt-eval doctor nki's checks and messages, on this machine (no
// Neuron SDK, no Trainium) and with the test-only stand-in on PYTHONPATH.
#include <boost/test/unit_test.hpp>

#include "base/env.hpp"
#include "evaluators/nki/doctor.hpp"

using namespace accelopt;
using namespace accelopt::eval::nki;

namespace {
const std::string kSrc = ACCELOPT_SOURCE_DIR;

NkiConfig Config(const std::string& python) {
  auto c = NkiConfig::FromJson({{"python", python}, {"cores", "0-1"}, {"runner_dir", kSrc + "/evaluators/nki"},
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
  const auto& prof = Find(checks, "neuron-profile");
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
  auto checks = RunDoctor(Config("/usr/bin/python3"), Env::Default(),
                          {{"PYTHONPATH", kSrc + "/tests/fakes/nki/python"}});
  BOOST_TEST(Find(checks, "python").ok);
  const auto& cc = Find(checks, "neuronxcc");
  BOOST_TEST(!cc.ok);
  BOOST_TEST(cc.detail.find("test-only stand-in") != std::string::npos, cc.detail);
  // Without the stand-in, this machine's Python has no Neuron compiler at all.
  auto plain = RunDoctor(Config("/usr/bin/python3"), Env::Default());
  const auto& none = Find(plain, "neuronxcc");
  BOOST_TEST(!none.ok);
  BOOST_TEST(none.detail.find("No module named 'neuronxcc'") != std::string::npos, none.detail);
  BOOST_TEST(none.fix.find("pip install neuronx-cc") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
