// Reading what the judge (harness/judge_main.cpp) said — its exit, its last
// "stage" line, its final "ACCELOPT-JUDGE {json}" line — into the parts of
// an EvalResult that do not depend on the backend: the status and reason of
// a failure (wrong result, crash, sandbox, timeout, suspicious timing, judge
// error), or the passing verdict's JSON and latency statistics. Only the
// judge's own lines become reason and error_text; the runner's ("runner: ")
// go to runner_diagnostics. A judge that ran out of time without its CPU
// share (ProcessSpec::timeout_cpu_share: the backends give it
// kTimeoutCpuShare of one core, and up to kTimeoutStretch x the timeout of
// wall time to get it) is an internal_error saying the host was busy (not
// reusable: the same code is evaluated again when it comes back), never the
// kernel's `timeout`. Shared by
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
  std::string reason, error_text;                  // the judge's own words only: what a prompt may show
  // What the candidate's runner processes wrote (the judge's "runner: "
  // lines), bounded: for a human (EvalResult::runner_diagnostics), never
  // for error_text or a prompt.
  std::string runner_diagnostics;
  // The judge's processes' CPU time against its wall time, when it ran out
  // of time: how much of the machine the evaluation actually got.
  double cpu_share = 0;
  std::string failure_kind, phase;  // when the judge itself reported a failure: its "failure" and "phase"
};

constexpr double kTimeoutCpuShare = 0.5;
constexpr int kTimeoutStretch = 4;

// `run`: the judge's process result; `cases`: the cases it was given (for
// naming them); `timeout_s`: its limit (for the message).
JudgeOutcome ReadJudgeOutcome(const ProcessResult& run, const std::vector<CaseSpec>& cases, double timeout_s);

// The passing verdict's samples as latency statistics.
LatencyStats LatencyOfVerdict(const json& h);

}  // namespace accelopt::eval::judge
