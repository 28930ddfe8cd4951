#include "iteration_work.hpp"

#include <algorithm>

namespace accelopt::bench::campaign {

int64_t IterationWork::EvaluationWork() const {
  int64_t sum = other_eval_us;
  for (const auto& [b, us] : measure_us) sum += us;
  for (const auto& [k, us] : evaluate_us) sum += us;
  return sum;
}

std::vector<std::vector<IterationWork>> WorkOf(const workflows::CampaignState& state, const Timings& t) {
  namespace w = workflows;
  std::vector<std::vector<IterationWork>> out(state.problems.size());
  for (const auto& [id, a] : state.activities) {
    auto& its = out.at(static_cast<size_t>(a.problem));
    if (static_cast<int>(its.size()) <= a.iteration) its.resize(static_cast<size_t>(a.iteration) + 1);
    IterationWork& it = its[static_cast<size_t>(a.iteration)];
    const int64_t d = DurationUs(t, a.kind, id);
    const auto key = std::make_tuple(a.beam, a.plan, a.sample);
    if (a.purpose == w::kPurposeMeasure)
      it.measure_us[a.beam] = d;
    else if (a.purpose == w::kPurposeSummarize)
      it.summarize_us.push_back(d);
    else if (a.purpose == w::kPurposePlan)
      it.plan_us[{a.beam, a.plan}] = d;
    else if (a.purpose == w::kPurposeExecute)
      it.execute_us[key] = d;
    else if (a.purpose == w::kPurposeEvaluate && a.attempt == 0)
      it.evaluate_us[key] = d;
    else if (a.kind == w::ActivityKind::kEvaluation)
      it.other_eval_us += d;
    else if (a.kind == w::ActivityKind::kLlm)
      it.other_llm_us = std::max(it.other_llm_us, d);
  }
  return out;
}

}  // namespace accelopt::bench::campaign
