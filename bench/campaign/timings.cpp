#include "timings.hpp"

#include <cmath>

#include "workflows/rng.hpp"

namespace accelopt::bench::campaign {

int64_t DurationUs(const Timings& t, workflows::ActivityKind kind, const std::string& activity_id) {
  if (kind == workflows::ActivityKind::kMemory) return 0;
  const bool llm = kind == workflows::ActivityKind::kLlm;
  const double lo_ms = 1000 * (llm ? t.llm_lo_s : t.eval_lo_s);
  const double hi_ms = 1000 * (llm ? t.llm_hi_s : t.eval_hi_s);
  workflows::Rng rng(t.seed, activity_id);
  const auto span = static_cast<uint64_t>(std::llround(hi_ms - lo_ms)) + 1;
  const double ms = lo_ms + static_cast<double>(rng.Uniform(span));
  return static_cast<int64_t>(std::llround(ms * 1000 * (llm ? t.llm_factor : 1.0)));
}

}  // namespace accelopt::bench::campaign
