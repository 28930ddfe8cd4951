// The judge's rule for a device-timed runner (the cuda runner): the runner
// reports each batch's device time (CUDA events), and that number comes from
// the candidate's process, so it is a claim. The judge accepts it only when
// it is consistent with the judge's own clock, which times the whole round
// trip (continue the runner, command, reply, stop it again):
//
//   upper bound  device <= wall + batch * slack
//                the events run inside the round trip the judge timed, so a
//                claim above that trip is impossible: "protocol" failure.
//                (Until round 3 the bound also subtracted the cheapest kNull
//                trip measured before load; a later trip's fixed part can be
//                shorter than that minimum (a warmer cache, a core that was
//                awake), and honest claims were refused on a quiet machine:
//                "claimed 20232.9 us ... at most 20196.4 us possible".)
//   lower bound  what the judge saw beyond the claimed device time must be
//                explained by the runner's own per-call work (copies, NaN
//                fill, flush, handshake: what kNull trips cost):
//                  unexplained = wall - device
//                  allowed     = batch * null_median * kUnexplainedFactor
//                                + max(kUnexplainedAbsS, kUnexplainedRel * wall)
//                A single trip can exceed it honestly (the judge itself was
//                descheduled on a busy host), so the judge decides on the
//                median of unexplained / allowed over all its calls: above 1
//                means device time went missing from the claims (a runner
//                reporting less than ran, or work outside the events):
//                "device_time" failure (CheckUnexplained).
//   sanity       the claim is finite and > 0 for every batch.
//
// The bounds are deliberately loose (the copies of large inputs are
// pageable and vary; the judge may be descheduled): the lower bound catches
// a consistent under-report larger than the copy noise and half of the
// round trip, not a few percent, and not a runner that lies on fewer than
// half of its calls. The thresholds are set on paper: they
// have never been checked against a real GPU (docs/evaluation.md, "cuda
// backend").
//
// Header-only, embedded in the evaluator and compiled into the judge; also
// included by tests/evaluators/cuda_judge_test.cpp. Pure functions: thread
// safe.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace accelopt_device_clock {

constexpr double kClaimSlackS = 2e-6;       // per call: event resolution and clock granularity
constexpr double kUnexplainedFactor = 1.5;  // per call: x the median kNull trip
// Per batch: the scheduling noise of a shared host. A runner that sleeps
// through its kernel (a GPU sync; the fake's 20 ms) waits for a CPU to wake
// on, and beside other work that is timeslices of milliseconds: under ctest
// -j3 and a CPU hog on 2 cores the honest fake measured 1.07x the earlier
// allowance (0.5 ms, 25% of the trip) where a quiet run measures 0.03x.
constexpr double kUnexplainedAbsS = 5e-3;
constexpr double kUnexplainedRel = 0.5;  // x the round trip, the same noise on long trips

struct Verdict {
  std::string failure;  // "" accepted; "protocol" (claim above the clock) or "device_time" (below it)
  std::string message;
  double sample_s = 0;           // accepted: device seconds per call (device_s / batch)
  double unexplained_ratio = 0;  // (wall - device) / allowed; > 1 on the median fails (CheckUnexplained)
};

inline std::string DeviceClockUs(double s) {
  char b[48];
  std::snprintf(b, sizeof b, "%.1f us", s * 1e6);
  return b;
}

// device_s: the runner's claim for the batch; wall_s: the judge's round trip
// of it; null_min_s / null_median_s: the judge's kNull trips (before the
// candidate was loaded).
inline Verdict CheckDeviceClaim(double device_s, double wall_s, uint32_t batch, double null_min_s,
                                double null_median_s) {
  Verdict v;
  const double n = batch < 1 ? 1.0 : static_cast<double>(batch);
  if (!std::isfinite(device_s) || device_s <= 0) {
    v.failure = "protocol";
    v.message = "the runner reported no device time for a batch of " + std::to_string(batch) + " calls";
    return v;
  }
  (void)null_min_s;
  const double ceiling = wall_s + n * kClaimSlackS;
  if (device_s > ceiling) {
    v.failure = "protocol";
    v.message = "the runner claimed " + DeviceClockUs(device_s) + " of device time for " + std::to_string(batch) +
                " calls in a round trip the judge timed at " + DeviceClockUs(wall_s) + " (at most " +
                DeviceClockUs(ceiling) + " possible): a runner's time must fit inside the judge's clock";
    return v;
  }
  const double allowed = n * null_median_s * kUnexplainedFactor + std::max(kUnexplainedAbsS, kUnexplainedRel * wall_s);
  v.unexplained_ratio = (wall_s - device_s) / allowed;
  v.sample_s = device_s / n;
  return v;
}

// The lower bound over an evaluation: `ratios` are the accepted claims'
// unexplained_ratio. Fails when their median is above 1.
inline Verdict CheckUnexplained(std::vector<double> ratios) {
  Verdict v;
  if (ratios.empty()) return v;
  std::sort(ratios.begin(), ratios.end());
  const size_t m = ratios.size() / 2;
  const double median = ratios.size() % 2 ? ratios[m] : 0.5 * (ratios[m - 1] + ratios[m]);
  if (median > 1) {
    char b[64];
    std::snprintf(b, sizeof b, "%.2f", median);
    v.failure = "device_time";
    v.message = std::string(
                    "the runner's reported device time leaves more of the judge's clock unaccounted for "
                    "than its own work (copies, NaN fill, L2 flush, handshake) explains: a median of ") +
                b + "x the allowance over " + std::to_string(ratios.size()) +
                " calls; work ran outside the timed events or the time was under-reported";
  }
  return v;
}

}  // namespace accelopt_device_clock
