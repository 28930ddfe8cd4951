// acceloptd with `evaluators.nki.cores: "auto"` (the default): at start it
// runs neuron-ls --json-output and makes one evaluation slot per NeuronCore;
// a missing or failing neuron-ls stops the start with the fix. neuron-ls is
// the test-only stand-in tests/fakes/nki/bin/neuron-ls (2 devices x 2 cores
// unless told otherwise): nothing here ran on a Trainium.
#include <sys/stat.h>

#include <boost/test/unit_test.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/env.hpp"
#include "base/subprocess.hpp"
#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;
namespace fs = std::filesystem;

namespace {

// A bin folder whose neuron-ls is the stand-in (nothing else in it).
std::string NkiCoresFakeBin(const std::string& dir) {
  fs::create_directories(dir);
  fs::remove(dir + "/neuron-ls");
  fs::create_symlink(SourceDir() + "/tests/fakes/nki/bin/neuron-ls", dir + "/neuron-ls");
  return dir;
}

// acceloptd on a config with only the nki backend; exits (1) when it refuses.
ProcessResult StartRefused(const std::string& path, const json& nki) {
  const fs::path dir = fs::path(ACCELOPT_BINARY_DIR) / "daemon-nki-cores-test";
  fs::create_directories(dir / "state");
  std::ofstream(dir / "d.json") << json{{"state_dir", (dir / "state").string()},
                                        {"listen", {{"unix", (dir / "state" / "sock").string()}}},
                                        {"evaluators", {{"nki", nki}}},
                                        {"providers",
                                         {{"p", {{"kind", "openai"}, {"base_url", "http://127.0.0.1:1/v1"}}}}},
                                        {"roles",
                                         {{"planner", {{"provider", "p"}, {"model", "m"}}},
                                          {"executor", {{"provider", "p"}, {"model", "m"}}},
                                          {"summarizer", {{"provider", "p"}, {"model", "m"}}}}}}
                                       .dump();
  ProcessSpec spec;
  spec.argv = {AcceloptdPath(), "-c", (dir / "d.json").string()};
  spec.env_set["PATH"] = path;
  spec.timeout = std::chrono::seconds(30);
  auto r = Env::Default()->RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  return *r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nki_cores)

BOOST_AUTO_TEST_CASE(without_neuron_ls_the_start_stops_with_the_fix) {
  ProcessResult r = StartRefused("/nonexistent-bin", {{"python", "/usr/bin/python3"}});
  BOOST_TEST((r.outcome == ProcessResult::Outcome::kExited), r.Describe());
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(r.stderr_data.find("evaluators.nki.cores \"auto\": neuron-ls not found (PATH /nonexistent-bin:"
                                "/opt/aws/neuron/bin)") != std::string::npos,
             r.stderr_data);
  BOOST_TEST(r.stderr_data.find("set evaluators.nki.cores explicitly") != std::string::npos, r.stderr_data);
  BOOST_TEST(r.stderr_data.find("install aws-neuronx-tools") != std::string::npos, r.stderr_data);
}

BOOST_AUTO_TEST_CASE(a_failing_neuron_ls_stops_the_start_with_its_message) {
  const std::string bin = NkiCoresFakeBin(std::string(ACCELOPT_BINARY_DIR) + "/daemon-nki-cores-test/failing-bin");
  std::ofstream(bin + "/neuron-ls.fail") << "neuron-ls: failed to open /dev/neuron0: Permission denied\n";
  ProcessResult r = StartRefused(bin + ":/usr/bin:/bin", {{"python", "/usr/bin/python3"}, {"cores", "auto"}});
  fs::remove(bin + "/neuron-ls.fail");
  BOOST_TEST(r.exit_code == 1, r.Describe());
  BOOST_TEST(r.stderr_data.find("neuron-ls --json-output failed (exited with code 1): neuron-ls: failed to open "
                                "/dev/neuron0: Permission denied") != std::string::npos,
             r.stderr_data);
  BOOST_TEST(r.stderr_data.find("set evaluators.nki.cores explicitly") != std::string::npos, r.stderr_data);
}

BOOST_AUTO_TEST_CASE(one_slot_per_detected_core) {
  const std::string bin = NkiCoresFakeBin(std::string(ACCELOPT_BINARY_DIR) + "/daemon-nki-cores-test/ok-bin");
  // The daemon inherits this process's PATH (the fixture adds to, not
  // replaces, the environment).
  const std::string old_path = getenv("PATH") ? getenv("PATH") : "";
  setenv("PATH", (bin + ":" + old_path).c_str(), 1);
  {
    // The start also reads the SDK's versions (evaluators/nki/sdk.hpp):
    // the stand-in, through a wrapper interpreter, answers as Neuron 2.29.
    const std::string py = bin + "/python-stand-in";
    std::ofstream(py) << "#!/bin/sh\nPYTHONPATH=" << SourceDir()
                      << "/tests/fakes/nki/python ACCELOPT_STAND_IN_SDK=2.29 exec /usr/bin/python3 \"$@\"\n";
    chmod(py.c_str(), 0755);
    DaemonFixture f(StandardScript(5), {{"evaluators", {{"nki", {{"python", py}}}}}});
    f.StartDaemon();
    BOOST_TEST(f.Ctl({"health"}).exit_code == 0);
    BOOST_TEST(f.StopDaemon() == 0);
    const std::string log = ReadAll(f.daemon_log);
    BOOST_TEST(log.find("evaluator backend 'nki': 4 NeuronCores (auto: 2 Neuron devices x 2 NeuronCores = 4 "
                        "(neuron-ls --json-output); using 4 cores)") != std::string::npos,
               log);
    BOOST_TEST(log.find("evaluators.nki: Neuron 2.29 (nki 0.3.0): the nki package path") != std::string::npos, log);
    BOOST_TEST(log.find("profiler neuron-explorer") != std::string::npos, log);
  }
  setenv("PATH", old_path.c_str(), 1);
}

// No NKI in the interpreter: the start stops, naming what was found and
// what is supported (it used to start and fail every evaluation).
BOOST_AUTO_TEST_CASE(an_interpreter_without_a_supported_sdk_stops_the_start) {
  const std::string bin = NkiCoresFakeBin(std::string(ACCELOPT_BINARY_DIR) + "/daemon-nki-cores-test/ok-bin");
  ProcessResult r = StartRefused(bin + ":/usr/bin:/bin", {{"python", "/usr/bin/python3"}, {"cores", "auto"}});
  BOOST_TEST(r.exit_code == 1, r.Describe());
  BOOST_TEST(r.stderr_data.find("neither neuronxcc.nki nor the nki package can be imported") != std::string::npos,
             r.stderr_data);
  BOOST_TEST(r.stderr_data.find("accelopt knows Neuron up to 2.27") != std::string::npos, r.stderr_data);
  BOOST_TEST(r.stderr_data.find("No module named") != std::string::npos, r.stderr_data);  // the real cause
}

BOOST_AUTO_TEST_SUITE_END()
