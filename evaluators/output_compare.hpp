// The judges' comparison of one output: relative L2 error in double of a
// float32 output against a float64 reference, over every element; any NaN
// or Inf fails. A reference of zero norm is compared absolutely
// (sqrt(sum of squares)). Header-only and dependency-free on purpose: the
// cpu harness (a separate program compiled at run time, which embeds this
// file) and the nki judge (evaluators/nki/judge_compare.hpp) compare the
// same way.
//
// Thread safety: pure functions.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace accelopt::eval::compare {

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
    if (d > c->max_abs) {
      c->max_abs = d;
      c->max_idx = e;
      c->got = got[e];
      c->want = want[e];
    }
  }
}

}  // namespace accelopt::eval::compare
