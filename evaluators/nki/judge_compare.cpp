#include "evaluators/nki/judge_compare.hpp"

#include "evaluators/output_compare.hpp"

namespace accelopt::eval::nki {

CaseVerdict JudgeCase(const workflows::ProblemSpec& problem, const std::vector<std::vector<float>>& got,
                      const std::vector<std::vector<double>>& want) {
  using compare::Num;
  CaseVerdict v;
  std::vector<const workflows::Param*> outs;
  for (const auto& p : problem.params)
    if (p.kind == workflows::ParamKind::kOutput) outs.push_back(&p);
  if (got.size() != outs.size()) {
    v.reason = "the kernel returned " + std::to_string(got.size()) + " outputs; the problem has " +
               std::to_string(outs.size());
    return v;
  }
  if (want.size() != outs.size()) {
    v.reason = "internal: the reference returned " + std::to_string(want.size()) + " outputs, expected " +
               std::to_string(outs.size());
    return v;
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const workflows::Param& p = *outs[k];
    const int64_t n = p.elements;
    if (static_cast<int64_t>(want[k].size()) != n) {
      v.reason = "internal: reference output '" + p.name + "' has " + std::to_string(want[k].size()) +
                 " elements, expected " + std::to_string(n);
      return v;
    }
    if (static_cast<int64_t>(got[k].size()) != n) {
      v.reason =
          "output '" + p.name + "' has " + std::to_string(got[k].size()) + " elements, expected " + std::to_string(n);
      return v;
    }
    compare::Compare c = compare::CompareOutput(got[k].data(), want[k].data(), n);
    if (c.nonfinite) {
      v.reason = "output '" + p.name + "' has " + std::to_string(c.nonfinite) + " NaN/Inf values of " +
                 std::to_string(n) + " (first at index " + std::to_string(c.first_nonfinite) + ")";
      return v;
    }
    if (c.rel > v.worst_rel) v.worst_rel = c.rel;
    if (!(c.rel <= problem.tolerance)) {
      compare::WorstElement(got[k].data(), want[k].data(), n, &c);
      v.reason = "output '" + p.name + "' relative L2 error " + Num(c.rel) + " exceeds tolerance " +
                 Num(problem.tolerance) + " (max |error| " + Num(c.max_abs) + " at index " + std::to_string(c.max_idx) +
                 ": got " + Num(c.got) + ", expected " + Num(c.want) + ")";
      return v;
    }
  }
  v.ok = true;
  return v;
}

CaseVerdict JudgeCaseFiles(const workflows::ProblemSpec& problem, const std::vector<OutputFile>& got,
                           const std::vector<OutputFile>& want, Env* env, int64_t chunk) {
  using compare::Num;
  CaseVerdict v;
  std::vector<const workflows::Param*> outs;
  for (const auto& p : problem.params)
    if (p.kind == workflows::ParamKind::kOutput) outs.push_back(&p);
  if (got.size() != outs.size()) {
    v.reason = "the kernel returned " + std::to_string(got.size()) + " outputs; the problem has " +
               std::to_string(outs.size());
    return v;
  }
  if (want.size() != outs.size()) {
    v.reason = "internal: the reference returned " + std::to_string(want.size()) + " outputs, expected " +
               std::to_string(outs.size());
    return v;
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const workflows::Param& p = *outs[k];
    const int64_t n = p.elements;
    if (want[k].elements != n) {
      v.reason = "internal: reference output '" + p.name + "' has " + std::to_string(want[k].elements) +
                 " elements, expected " + std::to_string(n);
      return v;
    }
    if (got[k].elements != n) {
      v.reason =
          "output '" + p.name + "' has " + std::to_string(got[k].elements) + " elements, expected " + std::to_string(n);
      return v;
    }
    auto c = CompareOutputFiles(got[k], want[k], env, chunk);
    if (!c.ok()) {
      v.reason = "output '" + p.name + "' could not be compared: " + c.status().message();
      return v;
    }
    if (c->nonfinite) {
      v.reason = "output '" + p.name + "' has " + std::to_string(c->nonfinite) + " NaN/Inf values of " +
                 std::to_string(n) + " (first at index " + std::to_string(c->first_nonfinite) + ")";
      return v;
    }
    if (c->rel > v.worst_rel) v.worst_rel = c->rel;
    if (!(c->rel <= problem.tolerance)) {
      v.reason = "output '" + p.name + "' relative L2 error " + Num(c->rel) + " exceeds tolerance " +
                 Num(problem.tolerance) + " (max |error| " + Num(c->max_abs) + " at index " +
                 std::to_string(c->max_idx) + ": got " + Num(c->got) + ", expected " + Num(c->want) + ")";
      return v;
    }
  }
  v.ok = true;
  return v;
}

}  // namespace accelopt::eval::nki
