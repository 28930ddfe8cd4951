#include "llm/retry.hpp"

#include <algorithm>

namespace accelopt::llm {

bool IsRetryableHttpStatus(int status) { return status == 408 || status == 429 || (status >= 500 && status <= 599); }

Millis FullJitterBackoff(const RetryPolicy& policy, int retry, uint64_t random) {
  const int64_t cap = std::max<int64_t>(policy.cap.count(), 0);
  int64_t ceiling = std::max<int64_t>(policy.base.count(), 0);
  for (int i = 1; i < retry && ceiling < cap; ++i) ceiling *= 2;
  ceiling = std::min(ceiling, cap);
  if (ceiling <= 0) return Millis(0);
  return Millis(static_cast<int64_t>(random % static_cast<uint64_t>(ceiling + 1)));
}

std::optional<Millis> RetryDelay(const RetryPolicy& policy, int retry, std::optional<Millis> retry_after,
                                 uint64_t random) {
  Millis wait = FullJitterBackoff(policy, retry, random);
  if (retry_after) {
    if (*retry_after > policy.max_retry_after) return std::nullopt;
    wait = std::max(wait, std::max(*retry_after, Millis(0)));
  }
  return wait;
}

}  // namespace accelopt::llm
