// Sampled activity durations for the campaign schedule bench: each
// activity's duration is drawn from Rng(seed, activity id), so every
// schedule computed from the same campaign (the runtime's, the lockstep one,
// the lower bound) sees exactly the same timings, whatever order it runs
// things in.
#pragma once

#include <cstdint>
#include <string>

#include "workflows/campaign_state.hpp"

namespace accelopt::bench::campaign {

struct Timings {
  uint64_t seed = 1;
  double llm_lo_s = 20, llm_hi_s = 90;    // every LLM call, uniform
  double eval_lo_s = 10, eval_hi_s = 40;  // every evaluation, uniform
  double llm_factor = 1;                  // a slow campaign's LLM latency multiplier
};

// Microseconds, uniform in [lo, hi] at millisecond resolution. Memory
// activities take 0.
int64_t DurationUs(const Timings& t, workflows::ActivityKind kind, const std::string& activity_id);

}  // namespace accelopt::bench::campaign
