#include "llm/pricing.hpp"

#include <algorithm>

namespace accelopt::llm {

double CostUsd(const ModelPrice& price, int64_t input, int64_t output, int64_t cached) {
  cached = std::clamp<int64_t>(cached, 0, std::max<int64_t>(input, 0));
  const double uncached = static_cast<double>(std::max<int64_t>(input - cached, 0));
  return (uncached * price.input_per_mtok + static_cast<double>(cached) * price.cached_input_per_mtok +
          static_cast<double>(std::max<int64_t>(output, 0)) * price.output_per_mtok) /
         1e6;
}

void ApplyPrice(const ProviderConfig& config, const std::string& requested_model,
                LlmResponse* r) {
  auto it = config.models.find(requested_model);
  if (it == config.models.end()) it = config.models.find(r->model);
  if (it == config.models.end()) {
    r->cost_usd = 0;
    r->cost_known = false;
    return;
  }
  r->cost_usd = CostUsd(it->second, r->input_tokens, r->output_tokens, r->cached_tokens);
  r->cost_known = true;
}

}  // namespace accelopt::llm
