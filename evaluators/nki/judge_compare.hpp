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

#include "base/env.hpp"
#include "evaluators/nki/output_files.hpp"
#include "workflows/problem_json.hpp"

namespace accelopt::eval::nki {

struct CaseVerdict {
  bool ok = false;
  std::string reason;    // "" when ok; else one line naming the output
  double worst_rel = 0;  // the largest relative L2 error seen
};

// `got[k]` and `want[k]` are output k of `problem` (outputs in params order).
CaseVerdict JudgeCase(const workflows::ProblemSpec& problem, const std::vector<std::vector<float>>& got,
                      const std::vector<std::vector<double>>& want);

// The same verdict on output files (evaluators/nki/output_files.hpp), read
// in chunks: what the judge uses (outputs of any size). A file that cannot
// be read is a failed case naming it.
CaseVerdict JudgeCaseFiles(const workflows::ProblemSpec& problem, const std::vector<OutputFile>& got,
                           const std::vector<OutputFile>& want, Env* env, int64_t chunk_elements = kChunkElements);

}  // namespace accelopt::eval::nki
