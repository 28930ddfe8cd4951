// What a campaign produced, derived from its state (and so from its events
// alone: BuildReport(Fold(events))). Deterministic: the same events in the
// same order give the same JSON.
//
//   {"campaign_id", "status", "reason", "exhausted_resource",
//    "problems": [{"id", "name", "status", "reason", "iterations_started",
//                  "baseline": {"latency_us", "percent_of_peak", "spread"} | null,
//                  "best": {"candidate_id" ("baseline" when nothing beat it),
//                           "source_sha256", "iteration", "latency_us",
//                           "spread", "percent_of_peak"} | null,
//                  "speedup": the headline speedup (below) | null,
//                  "speedup_low", "speedup_high": its ~95% interval | null,
//                  "speedup_noisy": bool | null (the interleaved run's noisy flag),
//                  "speedup_source": "interleaved" | "separate" | "none_beat_it" | null,
//                  "improvement": "none" | "within_noise" | "faster" | null,
//                  "percent_of_peak_by_iteration": [best so far after it. 0, 1, ...],
//                  "candidates": {"proposed", "failed", "evaluated", "correct"}}],
//    "geomean": {"baseline_percent_of_peak", "best_percent_of_peak", "speedup",
//                "problems"},    // over problems with a passing baseline;
//                                // speedup counts "none"/"within_noise" as 1
//    "usage": {"by_role": {role: U}, "by_model": {"provider/model": U},
//              "total": U, "evaluations": n},   // LLM activities that ended (completed
//                                                  // or failed): total.calls equals
//                                                  // budget.spent.llm_calls
//    "budget": {"spent": Amounts, "reserved": Amounts},
//    "test_stand_in": {"notice", "evaluation", "memory", "ranking", "results"}
//        only when evaluations returned a test stand-in's figures (NOT
//        measurements; campaign.hpp StandInBanner)}
//   U = {"calls", "failed_calls", "input_tokens", "output_tokens", "cost_usd",
//        "cost_sources": {source: calls}}  where each call's cost came from:
//        "usage" (the provider's usage x price), "estimate" (no usage in the
//        reply: bytes/4 x price), "no_price" (no price entry: counted as 0),
//        "replay", "none" (a failed call that returned nothing)
//
// The headline speedup, the one number `get`, `list`, `best`, the report
// (text, JSON, HTML) and the dashboard show for a problem: the final
// interleaved re-measurement of the final best against the baseline
// ("interleaved": its speedup, ~95% interval and noisy flag, as measured
// side by side in one run) when there is one; else the baseline's latency
// over the best's, each from its own measurement ("separate", no interval);
// exactly 1 when nothing beat the baseline ("none_beat_it").
// Per-iteration figures (the trace, "percent_of_peak_by_iteration", the
// lineage's speedup over a parent) are each iteration's own measurement, the
// best so far at that point, and may differ from the final best's
// re-measured figures.
//
// The best kernel is the fastest correct candidate (first one on ties) or the
// baseline. A percent_of_peak of -1 from the evaluator (unknown) is null here.
//
// "improvement" never calls noise a speedup: "none" when no correct
// candidate beat the baseline (best is the baseline at its own measurement,
// speedup exactly 1; the baseline's spread says how noisy that is);
// "within_noise" when the best is faster but not beyond the noise (the
// side-by-side ~95% interval includes 1 when there is one, else
// FasterBeyondNoise of the two measurements); "faster" otherwise.
//
// "paper" mode reports "speedup" as published ("published_speedup":
// {"value", "iteration", "by_iteration"}): per iteration the best child (a
// correct candidate of that iteration) against the original baseline, so it
// can be below 1; the headline is the unrounded value at the first iteration
// whose value rounded to 2 decimals is the maximum (the geomean uses it).
// "best" stays the fastest correct kernel. An iteration without a correct
// child is 0 in "by_iteration", and a problem without any has value 0
// (published accelopt/plotting_utils.py:79-91 @47e29a7); the report's
// "published_geomean_speedup": {"value", "problems"} is the geometric mean
// of the values over problems with a passing baseline, as published
// (experiments/full_complete_local/plot_trace.py:120-122, scipy's gmean):
// a 0 among them makes it 0.
//
// "default" mode adds "mode", candidates.{"reused", "fix_attempts" (sum over
// samples), "fixed" (correct after a fix)}, and per problem
//   "final": {"selected_latency_us", "selected_spread", "beam_id" ("" for a
//             child of the last beam), "parent": {"beam_id", "latency_us",
//             "spread"} | null (the baseline has none),
//             "remeasured": {"activity_id", "status", "correct", "latency_us",
//                            "spread", "reason"} | null,
//             "within_noise_of_parent": bool | null (re-measured latency not
//                 faster than the parent's beyond the noise of both),
//             "confirmed": bool | null,
//             "fallback": {"beam_id", "origin", "reason"} | null} | null
//             (null until BestSelected)
// and then "best" is the selected kernel (BestSelected) with the
// re-measured latency and percent of peak when the re-measurement is
// correct. When it failed, "fallback" says so and "best" is the fastest
// member of the last beam whose own re-measurement passed (the baseline at
// worst): an unconfirmed latency is never reported.
//
// Thread safety: pure function.
#pragma once

#include "base/json.hpp"
#include "workflows/campaign_state.hpp"

namespace accelopt::workflows {

inline constexpr const char kImprovementNone[] = "none";
inline constexpr const char kImprovementWithinNoise[] = "within_noise";
inline constexpr const char kImprovementFaster[] = "faster";

inline constexpr const char kSpeedupInterleaved[] = "interleaved";
inline constexpr const char kSpeedupSeparate[] = "separate";
inline constexpr const char kSpeedupNoneBeatIt[] = "none_beat_it";

json BuildReport(const CampaignState& state);

}  // namespace accelopt::workflows
