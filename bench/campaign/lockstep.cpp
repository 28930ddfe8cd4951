#include "lockstep.hpp"

#include <algorithm>
#include <functional>
#include <queue>

namespace accelopt::bench::campaign {

int64_t LockstepLoopUs(const std::vector<IterationWork>& iterations) {
  int64_t t = 0;
  for (const IterationWork& it : iterations) {
    for (const auto& [b, us] : it.measure_us) t += us;
    int64_t longest = 0;
    for (int64_t us : it.summarize_us) longest = std::max(longest, us);
    t += longest;
    longest = 0;
    for (const auto& [k, us] : it.plan_us) longest = std::max(longest, us);
    t += longest;
    for (const auto& [plan, unused] : it.plan_us) {
      int64_t exec = 0, evals = 0;
      for (auto e = it.execute_us.lower_bound({plan.first, plan.second, 0});
           e != it.execute_us.end() && std::get<0>(e->first) == plan.first && std::get<1>(e->first) == plan.second;
           ++e) {
        exec = std::max(exec, e->second);
        if (auto v = it.evaluate_us.find(e->first); v != it.evaluate_us.end()) evals += v->second;
      }
      t += exec + evals;
    }
    t += it.other_llm_us + it.other_eval_us;
  }
  return t;
}

int64_t LockstepMakespanUs(const std::vector<std::vector<IterationWork>>& problems, int devices) {
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> free_at;
  for (int d = 0; d < devices; ++d) free_at.push(0);
  int64_t makespan = 0;
  for (const auto& p : problems) {
    const int64_t start = free_at.top();
    free_at.pop();
    const int64_t end = start + LockstepLoopUs(p);
    makespan = std::max(makespan, end);
    free_at.push(end);
  }
  return makespan;
}

}  // namespace accelopt::bench::campaign
