// The campaign report with the detail a person reads or plots: the report of
// report.hpp (BuildReport, unchanged, first) plus what the HTML report
// (report_html.hpp) and `acceloptctl report` show. Derived from the state
// alone, deterministic.
//
// Added to BuildReport's JSON:
//   "started_at_us", "ended_at_us" (null while running), "updated_at_us"
//   (the latest event), "duration_s" (start to end, or to the latest event),
//   "search": {"T", "B", "N", "K"},
//   "llm_calls": [{"activity_id", "t_s" (completion, seconds after the
//       start), "role", "provider", "model", "status" ("completed"|"failed"),
//       "input_tokens", "output_tokens", "cost_usd", "reserved_cost_usd",
//       "source"}]   in completion order; "source" says where the figures
//       came from: the completion's "cost_source" when it has one, else
//       "usage" (tokens the provider reported, priced with the role's price
//       table), "failed call (partial usage)" for a failed call; the
//       reservation is always an estimate (prompt bytes, max_tokens).
// and per problem (same order as "problems"):
//   "bound", "flops", "bytes" (problem.json), "baseline_sha256",
//   "trace": [{"iteration", "best_latency_us", "best_percent_of_peak"
//       (== percent_of_peak_by_iteration[i]), "best_candidate_id",
//       "gflops", "gbs" (flops and bytes over the best latency; null when
//       unknown), "measurements": [M]}]   one entry per iteration started,
//   M = {"id", "what": "beam"|"candidate"|"final", "correct", "status",
//        "latency_us", "spread", "latency_low_us", "latency_high_us",
//        "percent_of_peak", "percent_low", "percent_high" (the ~95% interval
//        from the spread; null when unknown), "remeasured" (a beam member
//        of iteration >= 1 or the final best: a winner measured again)},
//   "lineage": [{"iteration", "candidate_id", "parent_beam_id",
//       "parent_origin", "plan_title", "ok", "failure", "status", "correct",
//       "latency_us", "parent_latency_us", "speedup_over_parent",
//       "attempt", "selected" (its code entered the next beam)}],
//   "best_path": [candidate ids from the first rewrite of the baseline to
//       the best kernel; empty when the best is the baseline],
//   "memory": [{"id", "title", "kind", "credit", "iteration", "written"
//       (by this campaign), "reads" (plans that named it), "no_optimization",
//       "known" (false: only its id was named, its text is not in the
//       campaign's memory any more)}].
//
// Thread safety: pure function.
#pragma once

#include "base/json.hpp"
#include "workflows/campaign_state.hpp"

namespace accelopt::workflows {

json BuildDetailedReport(const CampaignState& state);

}  // namespace accelopt::workflows
