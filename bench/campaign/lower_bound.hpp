// Lower bounds on any schedule of the same activities and durations
// (iteration_work.hpp) with S evaluation slots:
//   the issue's bound:  max( all evaluation work / S,
//                            max over problems of the sum over iterations of
//                              max(the iteration's evaluation work / S,
//                                  its critical path planner -> executor -> evaluation) )
// Iteration barriers are per problem (problems advance independently), so
// the per-iteration terms are summed per problem, not across problems.
//   the structural bound: the same with the critical path starting where the
// workflow really starts a planner call: after its beam member's re-profile
// and the iteration's summarizer calls (the memory the planner is shown), so
// re-profile (or summarizer) -> planner -> executor -> evaluation. Still a
// lower bound for this workflow; tighter, and it shows what the iteration
// barrier costs.
#pragma once

#include <cstdint>
#include <vector>

#include "iteration_work.hpp"

namespace accelopt::bench::campaign {

struct LowerBounds {
  int64_t issue_us = 0;
  int64_t structural_us = 0;
  int64_t work_us = 0;   // all evaluation work / S alone
  int64_t chain_us = 0;  // the structural chains alone (longest problem, S = infinity)
};

LowerBounds LowerBoundsFor(const std::vector<std::vector<IterationWork>>& problems, int slots);

}  // namespace accelopt::bench::campaign
