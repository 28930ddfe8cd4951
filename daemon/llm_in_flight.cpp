#include "daemon/llm_in_flight.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace accelopt::daemon {

int LlmInFlightPerCampaign(const std::vector<llm::ProviderConfig>& providers,
                           const std::map<std::string, RoleConfig>& roles, double share, int explicit_cap) {
  if (explicit_cap > 0) return explicit_cap;
  std::set<std::string> used;
  for (const auto& [role, rc] : roles) used.insert(rc.provider);
  int64_t slots = 0;
  for (const auto& p : providers)
    if (used.empty() || used.count(p.name)) slots += std::max(1, p.max_concurrency);
  if (slots == 0)
    for (const auto& p : providers) slots += std::max(1, p.max_concurrency);
  return std::max<int>(1, static_cast<int>(std::ceil(share * static_cast<double>(slots) - 1e-9)));
}

int LlmShare::PerCampaign() const {
  if (explicit_ > 0) return explicit_;
  const int active = std::max(1, active_.load());
  const int even = (slots_ + active - 1) / active;
  if (active == 1) return slots_;
  const int most = std::max(1, static_cast<int>(std::ceil(share_ * slots_ - 1e-9)));
  return std::max(1, std::min(even, most));
}

}  // namespace accelopt::daemon
