// What one problem's iteration did, with each activity's sampled duration
// (timings.hpp): the campaign's activities, as the workflow recorded them,
// grouped for the reference schedules (lockstep.hpp, lower_bound.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "timings.hpp"
#include "workflows/campaign_state.hpp"

namespace accelopt::bench::campaign {

struct IterationWork {
  std::map<int, int64_t> measure_us;                         // beam member -> its (re-)measurement
  std::vector<int64_t> summarize_us;                         // summarizer calls
  std::map<std::pair<int, int>, int64_t> plan_us;            // (beam, plan) -> planner call
  std::map<std::tuple<int, int, int>, int64_t> execute_us;   // (beam, plan, sample) -> executor call
  std::map<std::tuple<int, int, int>, int64_t> evaluate_us;  // (beam, plan, sample) -> evaluation
  int64_t other_eval_us = 0;       // evaluations of other purposes (default mode's fixes, final measure)
  int64_t other_llm_us = 0;        // LLM calls of other purposes (fixes), longest
  int64_t EvaluationWork() const;  // every evaluation's duration, summed
};

// [problem][iteration], every activity of `state` placed by its record's
// purpose and indices.
std::vector<std::vector<IterationWork>> WorkOf(const workflows::CampaignState& state, const Timings& t);

}  // namespace accelopt::bench::campaign
