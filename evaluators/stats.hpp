// Robust statistics of latency samples. Header-only and dependency-free on
// purpose: the cpu harness (a separate program compiled at run time) embeds
// this same file, so the evaluator and the harness agree on "spread".
//
// spread: the relative half-width of a ~95% distribution-free confidence
// interval of the median (order statistics n/2 -+ 0.98*sqrt(n)), divided by
// the median. Two kernels differ only when their medians differ by more than
// the sum of their spreads.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace accelopt::eval::stats {

inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

inline double Min(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

inline double Spread(std::vector<double> v) {
  if (v.size() < 2) return 1.0;  // one sample says nothing about noise
  std::sort(v.begin(), v.end());
  double n = static_cast<double>(v.size());
  double half = 0.98 * std::sqrt(n);
  long lo = static_cast<long>(std::floor(n / 2 - half));
  long hi = static_cast<long>(std::ceil(n / 2 + half)) - 1;
  lo = std::max(0L, lo);
  hi = std::min(static_cast<long>(v.size()) - 1, std::max(hi, lo));
  double med = Median(v);
  if (med <= 0) return 1.0;
  return (v[hi] - v[lo]) / (2 * med);
}

// Coefficient of variation (stddev / mean), for repeatability reports.
inline double CoefficientOfVariation(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double m = Mean(v), ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return m > 0 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) / m : 0;
}

}  // namespace accelopt::eval::stats
