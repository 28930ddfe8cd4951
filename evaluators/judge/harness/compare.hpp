// Output comparison of the judge: relative L2 error in double against the
// trusted double-precision reference, per output, over every element
// (evaluators/output_compare.hpp, shared with the nki judge); any NaN or Inf
// fails. A reference of zero norm is compared absolutely
// (sqrt(sum of squares) <= tolerance): exact zeros are then the right answer,
// and ZeroNormOutput() makes sure no output is zero in every case, so a
// kernel that writes zeros can never pass a whole evaluation. Included once,
// by judge_main.cpp.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "evaluators/judge/harness/job.hpp"
#include "evaluators/output_compare.hpp"

namespace judge {

using accelopt::eval::compare::Compare;
using accelopt::eval::compare::CompareOutput;
using accelopt::eval::compare::Num;
using accelopt::eval::compare::WorstElement;

// Returns "" when every output is within tolerance; else a one-line reason.
// outs[k] is the copy of output parameter k (nullptr for non-outputs).
inline std::string CheckOutputs(const Job& job, const std::vector<float*>& outs, const double* ref, double* worst) {
  size_t off = 0;
  for (size_t k = 0; k < job.params.size(); ++k) {
    const Param& p = job.params[k];
    if (p.kind != 'o') continue;
    Compare c = CompareOutput(outs[k], ref + off, p.elements);
    if (c.nonfinite) {
      return "output '" + p.name + "' has " + std::to_string(c.nonfinite) + " NaN/Inf values of " +
             std::to_string(p.elements) + " (first at index " + std::to_string(c.first_nonfinite) +
             "): part of the output was not written before the call returned, or the computation overflowed";
    }
    if (c.rel > *worst) *worst = c.rel;
    if (!(c.rel <= job.tolerance)) {
      WorstElement(outs[k], ref + off, p.elements, &c);
      return "output '" + p.name + "' relative L2 error " + Num(c.rel) + " exceeds tolerance " + Num(job.tolerance) +
             " (max |error| " + Num(c.max_abs) + " at index " + std::to_string(c.max_idx) + ": got " + Num(c.got) +
             ", expected " + Num(c.want) + ")";
    }
    off += static_cast<size_t>(p.elements);
  }
  return "";
}

// The name of an output whose reference is zero in every case ("" if none):
// such a case set cannot tell a kernel that writes zeros from a correct one.
inline std::string ZeroNormOutput(const Job& job, const std::vector<std::vector<double>>& refs) {
  size_t off = 0;
  for (const auto& p : job.params) {
    if (p.kind != 'o') continue;
    bool nonzero = false;
    for (const auto& r : refs) {
      if (r.empty()) continue;  // not computed (confirmation cases)
      for (int64_t e = 0; e < p.elements && !nonzero; ++e) nonzero = r[off + static_cast<size_t>(e)] != 0;
      if (nonzero) break;
    }
    if (!nonzero) return p.name;
    off += static_cast<size_t>(p.elements);
  }
  return "";
}

}  // namespace judge
