#include "evaluators/nki/eval_budget.hpp"

#include <algorithm>
#include <cstdio>

#include "evaluators/nki/output_files.hpp"

namespace accelopt::eval::nki {

std::string FormatBytes(uint64_t b) {
  char buf[64];
  if (b >= (uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1u << 30));
  else if (b >= (uint64_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(b) / (1u << 20));
  else if (b >= 1024)
    std::snprintf(buf, sizeof buf, "%.0f KiB", static_cast<double>(b) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}

EvalBudget EstimateBudget(const workflows::ProblemSpec& p, int normal_cases, int warmup, int iterations) {
  EvalBudget b;
  b.cases = normal_cases + static_cast<int>(p.adversarial.size());
  b.timing_runs = warmup + iterations;
  for (const auto& q : p.params) {
    if (q.kind == workflows::ParamKind::kInput) b.input_bytes += static_cast<uint64_t>(q.elements) * 4;
    if (q.kind == workflows::ParamKind::kOutput) b.output_bytes += static_cast<uint64_t>(q.elements) * 4;
  }
  const uint64_t cases = static_cast<uint64_t>(b.cases);
  const uint64_t inputs = cases * b.input_bytes;
  const uint64_t outputs = (cases + static_cast<uint64_t>(b.timing_runs)) * b.output_bytes;
  const uint64_t reference = cases * b.output_bytes * 2;
  b.moved = inputs + outputs + reference;
  b.disk = inputs + outputs + reference;
  // Chunks: an input chunk (float32), a float32 and a float64 chunk being
  // compared, and the raw strings they are read into; plus the records.
  b.judge_peak = static_cast<uint64_t>(kChunkElements) * (4 + 2 * (4 + 8)) + (uint64_t{16} << 20);
  // float64 inputs and four float64 copies of the outputs (numpy's
  // temporaries: bmm_softmax's forward holds x, x - max, exp and the
  // quotient); the runner: its inputs and four float32 copies of the
  // outputs (the stand-in's numpy kernel measured 3.9 GiB on bmm_softmax,
  // where this gives 4.1 GiB).
  b.reference_peak = 2 * b.input_bytes + 4 * 2 * b.output_bytes;
  b.runner_peak = b.input_bytes + 4 * b.output_bytes;
  b.host_peak = b.judge_peak + std::max(b.reference_peak, b.runner_peak);
  return b;
}

std::string EvalBudget::Describe() const {
  return "one evaluation moves " + FormatBytes(moved) + " between runner and judge (" + std::to_string(cases) +
         " cases + " + std::to_string(timing_runs) + " timing runs), disk " + FormatBytes(disk) +
         "; peak memory: judge " + FormatBytes(judge_peak) + ", reference process ~" + FormatBytes(reference_peak) +
         ", runner ~" + FormatBytes(runner_peak) + " (host ~" + FormatBytes(host_peak) + ")";
}

Status CheckFitsHost(const EvalBudget& b, const std::string& problem, uint64_t budget) {
  const uint64_t usable = budget > kHostReserveBytes ? budget - kHostReserveBytes : 0;
  if (b.host_peak <= usable) return Status::Ok();
  return Status(Code::kResourceExhausted, problem + ": one evaluation needs ~" + FormatBytes(b.host_peak) +
                                              " of memory at its peak (" + b.Describe() + "), more than a " +
                                              FormatBytes(budget) + " machine holds with " +
                                              FormatBytes(kHostReserveBytes) + " left to the system");
}

}  // namespace accelopt::eval::nki
