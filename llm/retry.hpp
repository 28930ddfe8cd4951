// Which failures are retried, and how long to wait before the next attempt.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>

#include "llm/config.hpp"

namespace accelopt::llm {

// 408, 429 and every 5xx (529 "overloaded" included). Other statuses are final.
bool IsRetryableHttpStatus(int status);

// Capped full-jitter exponential backoff (AWS architecture blog): the wait
// before retry number `retry` (1 = the second attempt) is uniform in
// [0, min(cap, base * 2^(retry-1))], drawn from `random`.
Millis FullJitterBackoff(const RetryPolicy& policy, int retry, uint64_t random);

// The wait before retry number `retry`, honouring a server's Retry-After:
// max(jitter, retry_after). nullopt when retry_after exceeds
// policy.max_retry_after (the caller then gives up with a retryable error).
std::optional<Millis> RetryDelay(const RetryPolicy& policy, int retry, std::optional<Millis> retry_after,
                                 uint64_t random);

}  // namespace accelopt::llm
