#include "lower_bound.hpp"

#include <algorithm>

namespace accelopt::bench::campaign {

namespace {

// The longest chain of the iteration, from `lead(beam)` (0, or when its
// planner may start) through planner, executor and evaluation.
template <typename Lead>
int64_t CriticalPathUs(const IterationWork& it, Lead lead) {
  int64_t longest = 0;
  for (const auto& [plan, plan_us] : it.plan_us) {
    const int64_t start = lead(plan.first) + plan_us;
    longest = std::max(longest, start);
    for (auto e = it.execute_us.lower_bound({plan.first, plan.second, 0});
         e != it.execute_us.end() && std::get<0>(e->first) == plan.first && std::get<1>(e->first) == plan.second; ++e) {
      int64_t end = start + e->second;
      if (auto v = it.evaluate_us.find(e->first); v != it.evaluate_us.end()) end += v->second;
      longest = std::max(longest, end);
    }
  }
  // An iteration without plans (e.g. the last one's completion) still waits
  // for its re-profiles.
  for (const auto& [b, us] : it.measure_us) longest = std::max(longest, lead(b));
  return longest;
}

}  // namespace

LowerBounds LowerBoundsFor(const std::vector<std::vector<IterationWork>>& problems, int slots) {
  LowerBounds lb;
  int64_t work = 0;
  for (const auto& p : problems) {
    int64_t issue = 0, structural = 0, chain = 0;
    for (const IterationWork& it : p) {
      const int64_t w = it.EvaluationWork();
      work += w;
      int64_t summarize = 0;
      for (int64_t us : it.summarize_us) summarize = std::max(summarize, us);
      const int64_t cp = CriticalPathUs(it, [](int) { return int64_t{0}; });
      const int64_t scp = CriticalPathUs(it, [&](int beam) {
        auto m = it.measure_us.find(beam);
        return std::max(summarize, m == it.measure_us.end() ? int64_t{0} : m->second);
      });
      issue += std::max(w / slots, cp);
      structural += std::max(w / slots, scp);
      chain += scp;
    }
    lb.issue_us = std::max(lb.issue_us, issue);
    lb.structural_us = std::max(lb.structural_us, structural);
    lb.chain_us = std::max(lb.chain_us, chain);
  }
  lb.work_us = work / slots;
  lb.issue_us = std::max(lb.issue_us, lb.work_us);
  lb.structural_us = std::max(lb.structural_us, lb.work_us);
  return lb;
}

}  // namespace accelopt::bench::campaign
