// The nki judge's verdict on one case: the runner's raw float32 outputs
// (what the kernel returned, in the problem's output order, C order)
// against the trusted float64 reference outputs (the numpy reference run in
// its own process on the same inputs widened to float64), per output:
// element counts must match exactly, every element finite, relative L2
// error <= the problem's tolerance (evaluators/output_compare.hpp, the cpu
// judge's comparison).
//
// Thread safety: pure function.
#pragma once

#include <string>
#include <vector>

#include "workflows/problem_json.hpp"

namespace accelopt::eval::nki {

struct CaseVerdict {
  bool ok = false;
  std::string reason;      // "" when ok; else one line naming the output
  double worst_rel = 0;    // the largest relative L2 error seen
};

// `got[k]` and `want[k]` are output k of `problem` (outputs in params order).
CaseVerdict JudgeCase(const workflows::ProblemSpec& problem, const std::vector<std::vector<float>>& got,
                      const std::vector<std::vector<double>>& want);

}  // namespace accelopt::eval::nki
