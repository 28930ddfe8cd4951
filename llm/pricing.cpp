#include "llm/pricing.hpp"

#include <set>

#include "base/log.hpp"
#include "base/mutex.hpp"

#include <algorithm>

namespace accelopt::llm {

double CostUsd(const ModelPrice& price, int64_t input, int64_t output, int64_t cached) {
  cached = std::clamp<int64_t>(cached, 0, std::max<int64_t>(input, 0));
  const double uncached = static_cast<double>(std::max<int64_t>(input - cached, 0));
  return (uncached * price.input_per_mtok + static_cast<double>(cached) * price.cached_input_per_mtok +
          static_cast<double>(std::max<int64_t>(output, 0)) * price.output_per_mtok) /
         1e6;
}

void ApplyPrice(const ProviderConfig& config, const std::string& requested_model, LlmResponse* r) {
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

void EstimateMissingUsage(const std::string& provider, const LlmRequest& request, LlmResponse* r) {
  if (r->input_tokens != 0 || r->output_tokens != 0 || r->replayed) return;
  auto tokens = [](size_t bytes) { return static_cast<int64_t>((bytes + kBytesPerToken - 1) / kBytesPerToken); };
  r->input_tokens = tokens(request.system.size() + request.user.size());
  r->output_tokens = tokens(r->text.size() + r->reasoning.size());
  r->cached_tokens = 0;
  r->usage_estimated = true;
  static Mutex mu;
  static std::set<std::string> warned ACCELOPT_GUARDED_BY(mu);  // providers already warned about
  MutexLock lock(&mu);
  if (warned.insert(provider).second) {
    LogWarning("provider '" + provider + "' returned a reply without usage; its token counts and costs are " +
               "estimated at " + std::to_string(kBytesPerToken) + " bytes per token (marked 'estimated')");
  }
}

void ApplyUsageAndPrice(const ProviderConfig& config, const LlmRequest& request, LlmResponse* response) {
  EstimateMissingUsage(config.name, request, response);
  ApplyPrice(config, request.model, response);
}

}  // namespace accelopt::llm
