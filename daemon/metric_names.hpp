// The daemon's Prometheus metrics (GET /metrics): every name as a
// constant, and the table of their types and help texts that RunDaemon
// registers (DescribeDaemonMetrics). A metric is used by its constant
// only, so a name is spelled once.
//
// Thread safety: constants; DescribeDaemonMetrics as Metrics::Describe.
#pragma once

#include "daemon/metrics.hpp"

namespace accelopt::daemon::metric {

inline constexpr const char kCampaigns[] = "accelopt_campaigns";
inline constexpr const char kLlmCallsTotal[] = "accelopt_llm_calls_total";
inline constexpr const char kLlmTokensTotal[] = "accelopt_llm_tokens_total";
inline constexpr const char kLlmCostUsdTotal[] = "accelopt_llm_cost_usd_total";
inline constexpr const char kEvaluationsTotal[] = "accelopt_evaluations_total";
inline constexpr const char kEvaluationsQueued[] = "accelopt_evaluations_queued";
inline constexpr const char kEvaluationsRunning[] = "accelopt_evaluations_running";
inline constexpr const char kEventLogLastGlobalPosition[] = "accelopt_event_log_last_global_position";
inline constexpr const char kEventLogHealthy[] = "accelopt_event_log_healthy";
inline constexpr const char kEventLogAppendsTotal[] = "accelopt_event_log_appends_total";
inline constexpr const char kEventLogAppendSecondsSum[] = "accelopt_event_log_append_seconds_sum";
inline constexpr const char kEventLogAppendSecondsCount[] = "accelopt_event_log_append_seconds_count";
inline constexpr const char kCampaignsFinishedTotal[] = "accelopt_campaigns_finished_total";
inline constexpr const char kLlmRequestsStartedTotal[] = "accelopt_llm_requests_started_total";
inline constexpr const char kLlmCallsWaitingTotal[] = "accelopt_llm_calls_waiting_total";
inline constexpr const char kLlmProviderAvailable[] = "accelopt_llm_provider_available";

}  // namespace accelopt::daemon::metric

namespace accelopt::daemon {

// Registers every metric above with its type and help text.
void DescribeDaemonMetrics(Metrics& metrics);

}  // namespace accelopt::daemon
