#include "daemon/metric_names.hpp"

namespace accelopt::daemon {

void DescribeDaemonMetrics(Metrics& metrics) {
  struct Row {
    const char* name;
    const char* type;
    const char* help;
  };
  static constexpr Row kRows[] = {
      {metric::kCampaigns, "gauge", "campaigns by state"},
      {metric::kLlmCallsTotal, "counter", "LLM calls by role, model and outcome"},
      {metric::kLlmTokensTotal, "counter", "LLM tokens by role, model and kind"},
      {metric::kLlmCostUsdTotal, "counter", "LLM cost in USD by role and model"},
      {metric::kEvaluationsTotal, "counter", "evaluations by outcome"},
      {metric::kEvaluationsQueued, "gauge", "evaluations waiting for a slot"},
      {metric::kEvaluationsRunning, "gauge", "evaluations running"},
      {metric::kEventLogLastGlobalPosition, "gauge", "events in the log"},
      {metric::kEventLogHealthy, "gauge", "1 while the event log accepts writes"},
      {metric::kEventLogAppendsTotal, "counter", "durable appends by the campaign runtime, by outcome"},
      {metric::kEventLogAppendSecondsSum, "counter", "time spent in durable appends (group commit + fsync)"},
      {metric::kEventLogAppendSecondsCount, "counter", "durable appends timed"},
      {metric::kCampaignsFinishedTotal, "counter", "campaigns that ended, by final state"},
      {metric::kLlmRequestsStartedTotal, "counter", "LLM calls started, by role and model"},
      {metric::kLlmCallsWaitingTotal, "counter",
       "LLM calls deferred because their provider was unavailable, by provider"},
      {metric::kLlmProviderAvailable, "gauge", "1 while a provider answers, 0 while its calls wait"},
  };
  for (const Row& r : kRows) metrics.Describe(r.name, r.type, r.help);
}

}  // namespace accelopt::daemon
