// The paper's timing rule for NKI kernels, as a pure function of the device
// times measured: a round is `warmup` unmeasured runs then `iterations`
// profiled runs (device time from neuron-profile, evaluators/nki/profile.hpp);
// another round runs while the last one's (max - min) / min exceeds
// `max_rel_diff`, up to `max_rounds` rounds; the round with the smallest
// (max - min) / min is kept (the first on ties) and its mean is the
// latency, as the published code did. Our additions: every sample of every
// round is kept, the kept round's median is reported beside the mean, and a
// result whose kept round never got within max_rel_diff is marked unstable
// (the paper accepted it silently).
//
// Thread safety: pure functions.
#pragma once

#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::eval::nki {

struct TimingRule {
  int warmup = 2;
  int iterations = 10;
  int max_rounds = 3;
  double max_rel_diff = 0.01;
};

struct TimingRound {
  std::vector<double> samples_s;
  double min_s = 0, max_s = 0, mean_s = 0, median_s = 0;
  double rel_diff = 0;  // (max - min) / min
};

// kInvalidArgument for an empty round or a sample that is not a positive
// finite time.
Result<TimingRound> SummarizeRound(const std::vector<double>& samples_s);

// True when another round must run after `rounds` (none yet: true).
bool NeedAnotherRound(const std::vector<TimingRound>& rounds, const TimingRule& rule);

struct TimingResult {
  std::vector<TimingRound> rounds;  // every round, in order
  size_t kept = 0;                  // index of the kept round
  double latency_s = 0;             // the kept round's mean (the paper's figure)
  double median_s = 0;              // the kept round's median
  bool stable = false;              // kept.rel_diff <= rule.max_rel_diff
  json ToJson() const;              // with every raw sample
};

// kInvalidArgument when there are no rounds, more than max_rounds, or a
// round does not have rule.iterations samples.
Result<TimingResult> ChooseRound(const std::vector<TimingRound>& rounds, const TimingRule& rule);

}  // namespace accelopt::eval::nki
