// acceloptd with evaluators.cuda configured: it refuses to start (exit 1)
// and says why — the cuda backend's judge is not built yet, or there is no
// nvcc (ACCELOPT_NVCC set but empty hides one) — instead of accepting cuda
// submissions that could never run (docs/evaluation.md, "cuda backend").
#define BOOST_TEST_MODULE daemon_cuda_config
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "base/env.hpp"
#include "base/subprocess.hpp"

using namespace accelopt;
namespace fs = std::filesystem;

namespace {

ProcessResult StartDaemon(const std::string& nvcc_var) {
  const fs::path dir = fs::path(ACCELOPT_BINARY_DIR) / "daemon-cuda-config-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "state");
  std::ofstream(dir / "d.json") << "{\"state_dir\": \"" << (dir / "state").string() << "\", \"listen\": {\"unix\": \""
                                << (dir / "state" / "sock").string()
                                << "\"}, \"evaluators\": {\"cuda\": {\"slots\": 1}}}\n";
  ProcessSpec spec;
  spec.argv = {ACCELOPTD_PATH, "-c", (dir / "d.json").string()};
  spec.env_set["ACCELOPT_NVCC"] = nvcc_var;
  spec.timeout = std::chrono::seconds(30);
  auto r = Env::Default()->RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  return *r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(without_nvcc_it_refuses_and_names_what_was_searched) {
  ProcessResult r = StartDaemon("");
  BOOST_TEST((r.outcome == ProcessResult::Outcome::kExited), r.Describe());
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(r.stderr_data.find("evaluators.cuda: the cuda backend is not available on this machine: no nvcc found") !=
                 std::string::npos,
             r.stderr_data);
}

BOOST_AUTO_TEST_CASE(with_nvcc_it_refuses_because_the_judge_is_not_built) {
  // Any existing file stands in for nvcc: the daemon only looks it up.
  ProcessResult r = StartDaemon("/bin/true");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(r.stderr_data.find("evaluators.cuda: the cuda backend cannot run kernels in this version (its GPU judge "
                                "is not built yet; nvcc found at /bin/true)") != std::string::npos,
             r.stderr_data);
}
