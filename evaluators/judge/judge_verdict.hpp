// Reading what the judge (harness/judge_main.cpp) said — its exit, its last
// "stage" line, its final "ACCELOPT-JUDGE {json}" line — into the parts of
// an EvalResult that do not depend on the backend: the status and reason of
// a failure (wrong result, crash, sandbox, timeout, suspicious timing, judge
// error), or the passing verdict's JSON and latency statistics. Shared by
// the cpu backend and the cuda backend (both run this judge).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/subprocess.hpp"
#include "evaluators/judge/harness_builder.hpp"
#include "evaluators/protocol.hpp"

namespace accelopt::eval::judge {

struct JudgeOutcome {
  bool passed = false;  // the judge's verdict was ok; `verdict` holds its JSON
  json verdict;
  EvalStatus status = EvalStatus::kInternalError;  // when !passed: the result's status, reason and text
  std::string reason, error_text;
  std::string failure_kind, phase;  // when the judge itself reported a failure: its "failure" and "phase"
};

// `run`: the judge's process result; `cases`: the cases it was given (for
// naming them); `timeout_s`: its limit (for the message).
JudgeOutcome ReadJudgeOutcome(const ProcessResult& run, const std::vector<CaseSpec>& cases, double timeout_s);

// The passing verdict's samples as latency statistics.
LatencyStats LatencyOfVerdict(const json& h);

}  // namespace accelopt::eval::judge
