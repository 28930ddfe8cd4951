// Decide's memory steps (campaign.hpp): between two iterations the last
// one's slow→fast pairs are chosen, summarized by the summarizer role and
// written as memory items; a bank is read once per iteration for its
// planners; experiences are credited when a plan that used them won. Which
// pairs and which old items stay is the mode's MemoryPolicy
// (memory_policy.hpp); the smaller mode differences are ModeRules
// (mode_rules.hpp).
//
// Each step appends its commands to the Round (decide_round.hpp: pure, one
// thread) and moves each item at most one step. REQUIRES everywhere:
// problem p is running and i is its last iteration.
#pragma once

#include "base/status.hpp"
#include "workflows/decide_round.hpp"

namespace accelopt::workflows {

// ExperiencesCredited for iteration i > 0, right after its beam
// (ModeRules.credit_experiences): the experiences of iteration i - 1's
// plans whose child beat its parent beyond noise; to the bank as well.
Status CreditExperiences(Round& round, int p, int i);

// MemoryPairsSelected for iteration i > 0: the pairs of iteration i - 1
// (MemoryPolicy::SelectPairs), less those summarized before
// (ModeRules.skip_summarized_pairs).
Status SelectMemoryPairs(Round& round, int p, int i);

// A summarizer call for each selected pair not yet scheduled.
Status ScheduleSummaries(Round& round, int p, int i);

// True when every selected pair's summarizer call is done.
bool AllPairsSummarized(const IterationState& it);

// MemoryUpdated from the summaries (REQUIRES: AllPairsSummarized): the new
// items (at most ExpN), the failed and dropped pairs, the old items
// retained; with a bank, the new items go to it as a side event.
Status UpdateMemory(Round& round, int p, int i);

// The memory the planners of iteration i see is known: iteration 0, or its
// memory updated; with a bank, also its snapshot taken (the snapshot is
// scheduled here once).
bool MemoryReady(Round& round, int p, int i);

}  // namespace accelopt::workflows
