// Runs the judge (evaluators/judge/harness/judge_main.cpp) on a job text
// and returns its verdict line's JSON, for the tests that drive the judge
// directly over a device-clock runner (cuda_judge_test, triton_judge_test).
// Fails the test when the judge does not exit 0 or prints no verdict.
#pragma once

#include <boost/test/unit_test.hpp>

#include <string>

#include "base/env.hpp"
#include "base/json.hpp"

namespace accelopt::testing {

inline json JudgeVerdict(Env* env, const std::string& judge, const std::string& job, const std::string& label) {
  ProcessSpec spec;
  spec.argv = {judge};
  spec.stdin_data = job;
  spec.clear_env = true;
  spec.timeout = std::chrono::seconds(60);
  auto r = env->RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST_MESSAGE("judge stderr (" << label << "): " << r->stderr_data.substr(0, 1500));
  BOOST_REQUIRE_MESSAGE(r->exit_code == 0, "judge exit " + r->Describe() + ": " + r->stderr_data.substr(0, 2000));
  const std::string marker = "ACCELOPT-JUDGE ";
  const size_t at = r->stdout_data.rfind(marker);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, r->stdout_data.substr(0, 2000));
  std::string line = r->stdout_data.substr(at + marker.size());
  auto parsed = ParseJson(line.substr(0, line.find('\n')));
  BOOST_REQUIRE(parsed.ok());
  return *parsed;
}

}  // namespace accelopt::testing
