// Fuzzes the check of an uploaded problem (PUT /v1/suites/{suite}/problems/
// {name}, daemon/suite_import.hpp): problem.json is untrusted text from the
// API, read by the one parser (workflows/problem_json.hpp). Any input must
// come back as a Status, never crash or throw; an accepted problem.json is
// an nki problem that the parser accepts again from its own dump.
//
// Input: the problem.json text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/json.hpp"
#include "daemon/suite_import.hpp"
#include "fuzz/fuzz_check.hpp"
#include "workflows/problem_json.hpp"

using namespace accelopt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  daemon::UploadedProblem p;
  p.suite = "nki";
  p.name = "silu";
  p.files["problem.json"] = std::string(reinterpret_cast<const char*>(data), size);
  p.files["reference.py"] = "def silu(x):\n    return x\n";
  p.files["baseline.py"] = "def silu(x):\n    return x\n";
  const Status st = daemon::CheckUploadedProblem(p);
  if (!st.ok()) {
    FUZZ_CHECK(st.code() == Code::kInvalidArgument);
    return 0;
  }
  auto j = ParseJson(p.files["problem.json"]);
  FUZZ_CHECK(j.ok());
  auto spec = workflows::ParseProblemSpec(*j, "problem.json");
  FUZZ_CHECK(spec.ok());
  FUZZ_CHECK(spec->backend == "nki");
  return 0;
}
