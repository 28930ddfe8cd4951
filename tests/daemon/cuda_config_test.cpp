// acceloptd with evaluators.cuda configured on a machine where the backend
// is not usable: it refuses to start (exit 1) and says why — there is no
// nvcc (ACCELOPT_NVCC set but empty hides one), or a listed GPU fails its
// start-up calibration (here: no GPU) — instead of accepting cuda
// submissions that could never run (docs/evaluation.md, "cuda backend").
// That the daemon starts and evaluates on a machine with GPUs is not
// verified here (no GPU).
#define BOOST_TEST_MODULE daemon_cuda_config
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "base/env.hpp"
#include "base/subprocess.hpp"

using namespace accelopt;
namespace fs = std::filesystem;

namespace {

ProcessResult StartDaemon(const std::string& nvcc_var,
                          const std::string& evaluators = "{\"cuda\": {\"devices\": [1, 0]}}") {
  const fs::path dir = fs::path(ACCELOPT_BINARY_DIR) / "daemon-cuda-config-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "state");
  std::ofstream(dir / "d.json")
      << "{\"state_dir\": \"" << (dir / "state").string() << "\", \"listen\": {\"unix\": \""
      << (dir / "state" / "sock").string() << "\"}, \"evaluators\": " << evaluators
      << ", \"providers\": {\"p\": {\"kind\": \"openai\", \"base_url\": \"http://127.0.0.1:1/v1\"}}"
      << ", \"roles\": {\"planner\": {\"provider\": \"p\", \"model\": \"m\"}, "
         "\"executor\": {\"provider\": \"p\", \"model\": \"m\"}, "
         "\"summarizer\": {\"provider\": \"p\", \"model\": \"m\"}}}\n";
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

BOOST_AUTO_TEST_CASE(with_nvcc_but_no_usable_gpu_it_refuses_naming_the_gpu) {
  // Any existing program stands in for nvcc: it "compiles" nothing, so the
  // calibration of the first listed GPU cannot run, as without a GPU.
  ProcessResult r = StartDaemon("/bin/true");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(r.stderr_data.find("evaluators.cuda: GPU 1 is not usable: ") != std::string::npos, r.stderr_data);
  BOOST_TEST(r.stderr_data.find("the cuda backend needs a working GPU for every entry of evaluators.cuda.devices") !=
                 std::string::npos,
             r.stderr_data);
}

// evaluators.triton: the interpreter must be named (absolute), and one that
// cannot import torch and triton (here: no torch) stops the start, naming
// the interpreter, the GPU and the import error.
BOOST_AUTO_TEST_CASE(triton_without_torch_refuses_naming_the_interpreter) {
  ProcessResult unnamed = StartDaemon("", "{\"triton\": {\"devices\": [0]}}");
  BOOST_TEST(unnamed.exit_code != 0);
  BOOST_TEST(unnamed.stderr_data.find("evaluators.triton.python: required") != std::string::npos, unnamed.stderr_data);
  ProcessResult relative = StartDaemon("", "{\"triton\": {\"python\": \"python3\"}}");
  BOOST_TEST(relative.stderr_data.find("evaluators.triton.python: required, the absolute path") != std::string::npos,
             relative.stderr_data);
  ProcessResult r = StartDaemon("", "{\"triton\": {\"python\": \"/usr/bin/python3\", \"devices\": [1]}}");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(r.stderr_data.find("evaluators.triton: /usr/bin/python3 cannot run the triton runner on GPU 1: ") !=
                 std::string::npos,
             r.stderr_data);
  BOOST_TEST(r.stderr_data.find("No module named 'torch'") != std::string::npos, r.stderr_data);
}
