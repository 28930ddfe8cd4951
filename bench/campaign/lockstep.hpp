// The makespan of the published AccelOpt schedule on the same activities and
// durations (iteration_work.hpp), given S devices: each device runs one
// problem's kernel loop at a time (problems in order, each to the device that
// frees first); a loop runs its iterations in lockstep:
//   1. the beam members' re-profiles, one after another on the device;
//   2. the summarizer calls, all at once (the longest counts);
//   3. every planner call, all at once (the longest counts);
//   4. for each plan in turn: its K executor calls at once (the longest
//      counts), then each sample evaluated one after another on the device.
// LLM calls are given unlimited concurrency here (generous to lockstep).
// Default mode's fix and final-measure activities run after step 4, serially.
#pragma once

#include <cstdint>
#include <vector>

#include "iteration_work.hpp"

namespace accelopt::bench::campaign {

// One problem's loop, start to end.
int64_t LockstepLoopUs(const std::vector<IterationWork>& iterations);

// Every problem's loop on `devices` devices. REQUIRES: devices >= 1.
int64_t LockstepMakespanUs(const std::vector<std::vector<IterationWork>>& problems, int devices);

}  // namespace accelopt::bench::campaign
