// Output comparison of the judge: relative L2 error in double against the
// trusted double-precision reference, per output, over every element; any
// NaN or Inf fails. A reference of zero norm is compared absolutely
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

#include "evaluators/cpu/harness/job.hpp"

namespace judge {

inline std::string Num(double v, int digits = 6) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

struct Compare {
  double rel = 0, max_abs = 0, got = 0, want = 0;
  int64_t max_idx = -1, nonfinite = 0, first_nonfinite = -1;
};

inline Compare CompareOutput(const float* got, const double* want, int64_t n) {
  Compare c;
  double num = 0, den = 0;
  int64_t nonfinite = 0;
  for (int64_t e = 0; e < n; ++e) {  // the hot loop: branch-free, vectorizes
    uint32_t bits;
    std::memcpy(&bits, &got[e], sizeof bits);
    const bool bad = (bits & 0x7f800000u) == 0x7f800000u;  // NaN or Inf
    const double d = bad ? 0.0 : static_cast<double>(got[e]) - want[e];
    nonfinite += bad ? 1 : 0;
    num += d * d;
    den += want[e] * want[e];
  }
  if (nonfinite) {
    c.nonfinite = nonfinite;
    for (int64_t e = 0; e < n && c.first_nonfinite < 0; ++e)
      if (!std::isfinite(got[e])) c.first_nonfinite = e;
    return c;
  }
  c.rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return c;
}

inline void WorstElement(const float* got, const double* want, int64_t n, Compare* c) {
  for (int64_t e = 0; e < n; ++e) {
    double d = std::fabs(static_cast<double>(got[e]) - want[e]);
    if (d > c->max_abs) { c->max_abs = d; c->max_idx = e; c->got = got[e]; c->want = want[e]; }
  }
}

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
