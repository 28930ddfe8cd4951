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

inline double Min(const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }

// The ~95% distribution-free confidence interval of the median: the order
// statistics n/2 -+ 0.98*sqrt(n). With fewer than 2 samples, [min, max].
inline void MedianInterval(std::vector<double> v, double* low, double* high) {
  *low = *high = 0;
  if (v.empty()) return;
  std::sort(v.begin(), v.end());
  double n = static_cast<double>(v.size());
  double half = 0.98 * std::sqrt(n);
  long lo = static_cast<long>(std::floor(n / 2 - half));
  long hi = static_cast<long>(std::ceil(n / 2 + half)) - 1;
  lo = std::max(0L, lo);
  hi = std::min(static_cast<long>(v.size()) - 1, std::max(hi, lo));
  *low = v[static_cast<size_t>(lo)];
  *high = v[static_cast<size_t>(hi)];
}

inline double Spread(std::vector<double> v) {
  if (v.size() < 2) return 1.0;  // one sample says nothing about noise
  double med = Median(v);
  if (med <= 0) return 1.0;
  double lo = 0, hi = 0;
  MedianInterval(std::move(v), &lo, &hi);
  return (hi - lo) / (2 * med);
}

// The speedup of `fast` over `slow` (ratio of medians) with a conservative
// ~95% interval from the two medians' intervals: [slow_lo/fast_hi,
// slow_hi/fast_lo]. Samples must come from one interleaved run.
// `covered`: the interval covers at least 95% (PairedSpeedup with 6 pairs or
// more); SpeedupInterval's combination of two intervals does not say.
struct Ratio {
  double value = 0, low = 0, high = 0;
  bool covered = false;
};
inline Ratio SpeedupInterval(const std::vector<double>& slow, const std::vector<double>& fast) {
  Ratio r;
  double sm = Median(slow), fm = Median(fast), slo, shi, flo, fhi;
  if (sm <= 0 || fm <= 0) return r;
  MedianInterval(slow, &slo, &shi);
  MedianInterval(fast, &flo, &fhi);
  r.value = sm / fm;
  r.low = fhi > 0 ? slo / fhi : 0;
  r.high = flo > 0 ? shi / flo : 0;
  return r;
}

// The ~95% distribution-free interval of the median from the binomial
// order statistics: [x(k), x(n+1-k)] (1-based, sorted) with the largest k
// whose tail P(Bin(n, 1/2) < k) is at most 0.025, so that it covers the
// median with at least 95% for every n. Returns false when n < 6: no order
// statistic does, and the interval is then [min, max], which covers less
// (n = 3: 75%; MedianInterval's n/2 -+ 0.98*sqrt(n) is that too).
inline bool ExactMedianInterval(std::vector<double> v, double* low, double* high) {
  *low = *high = 0;
  if (v.empty()) return false;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  // P(Bin(n, 1/2) < k), built up term by term in log space (n may be large).
  size_t k = 0;
  double tail = 0, log_term = -static_cast<double>(n) * std::log(2.0);  // log C(n, 0) / 2^n
  for (size_t i = 0; i < n; ++i) {
    tail += std::exp(log_term);  // now P(X <= i) = P(X < i + 1)
    if (tail > 0.025) break;
    k = i + 1;
    log_term += std::log(static_cast<double>(n - i)) - std::log(static_cast<double>(i + 1));
  }
  if (k == 0) {
    *low = v.front();
    *high = v.back();
    return false;
  }
  *low = v[k - 1];
  *high = v[n - k];
  return true;
}

// The speedup from paired samples: ratios[i] is slow / fast of two calls
// measured one right after the other on the same inputs (the order
// alternating). The value is the ratios' median and the interval the
// median's ~95% interval (ExactMedianInterval): load that changes slowly
// next to a pair cancels in its ratio, and a burst that hits one call of a
// pair moves one ratio, not the median. `covered` is false with fewer than
// 6 pairs: the interval is then [min, max] and less than 95%.
inline Ratio PairedSpeedup(const std::vector<double>& ratios) {
  Ratio r;
  if (ratios.empty()) return r;
  r.value = Median(ratios);
  r.covered = ExactMedianInterval(ratios, &r.low, &r.high);
  return r;
}

// Coefficient of variation (stddev / mean), for repeatability reports.
inline double CoefficientOfVariation(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double m = Mean(v), ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return m > 0 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) / m : 0;
}

}  // namespace accelopt::eval::stats
