// The runtime's scheduling on a simulated clock: drives the real workflow
// (workflows::StartCampaign, Decide, Apply) for one or more campaigns and
// runs their activities under the daemon's queueing rules, with durations
// from timings.hpp instead of real LLM calls and evaluations.
//
// The rules, as the daemon applies them (the daemon's code is tied to asio
// strands and worker threads, so only its queueing rule is reimplemented
// here, in a discrete-event loop):
//  * after every completion the campaign appends it and pumps Decide until it
//    returns nothing, appending each round (CampaignRunner::Pump);
//  * an LLM call waits in its campaign's FIFO queue until the campaign has
//    fewer calls out than its cap (CampaignRunner::LaunchQueued): the
//    daemon's rule is the real daemon::LlmShare (a campaign alone may use
//    every provider slot, n campaigns running share them, at most `share`
//    each), recomputed as campaigns end; `fixed_cap` > 0 instead applies
//    the rule before it (one fixed cap per campaign), for comparison; then
//    in the provider's FIFO queue for
//    one of its `provider_slots` (llm/http_provider.hpp: max_concurrency,
//    shared by every campaign);
//  * an evaluation waits in the dispatcher's queue for one of `eval_slots`
//    slots: FIFO within a campaign, round robin across campaigns
//    (eval::Dispatcher::PopLocked);
//  * a memory activity (bank scopes) is not simulated: kUnimplemented.
// Every event's recorded_at_us is the simulated clock, so the workflow sees
// simulated time. Single-threaded, deterministic.
#pragma once

#include <string>
#include <vector>

#include "base/status.hpp"
#include "daemon/llm_in_flight.hpp"
#include "sim.hpp"
#include "timings.hpp"
#include "workflows/campaign.hpp"

namespace accelopt::bench::campaign {

struct Limits {
  int eval_slots = 1;       // S
  int provider_slots = 64;  // the provider's max_concurrency
  double share = 0.5;       // limits.llm_share_per_campaign (daemon::LlmShare)
  int explicit_cap = 0;     // limits.max_llm_in_flight_per_campaign (> 0 fixes LlmShare's cap)
  // > 0: not the daemon's rule but the one before LlmShare, a fixed cap per
  // campaign whatever runs beside it (daemon::LlmInFlightPerCampaign).
  int fixed_cap = 0;
};

struct CampaignRun {
  std::string id;
  workflows::CampaignSpec spec;
  workflows::testing::Script script;
  std::vector<workflows::ProblemSource> sources;
  json hardware;
  Timings timings;  // this campaign's durations (llm_factor for a slow one)
};

struct RunFigures {
  int64_t makespan_us = 0;                       // the last campaign's end
  std::vector<int64_t> campaign_end_us;          // by campaign, from simulated time 0
  std::vector<workflows::CampaignState> states;  // the folded end states
  int64_t eval_busy_us = 0;                      // sum of evaluation durations
  int64_t llm_busy_us = 0;                       // sum of LLM call durations
  // Idle slot-time (slot-microseconds) while some campaign ran, by why:
  int64_t idle_cap_us = 0;       // an LLM call waited behind a per-campaign cap
  int64_t idle_provider_us = 0;  // an LLM call waited for a provider slot (no cap wait)
  int64_t idle_latency_us = 0;   // every wanted LLM call was out: latency and barriers
  int64_t llm_calls = 0, llm_calls_queued_by_cap = 0, evaluations = 0;
  int max_llm_out = 0;  // most LLM calls out at once (all campaigns)
};

Result<RunFigures> Simulate(const Limits& limits, std::vector<CampaignRun> campaigns);

}  // namespace accelopt::bench::campaign
