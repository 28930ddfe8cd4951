// The small decisions in which the search modes differ (campaign.hpp,
// "Search modes"), each named once, so that Decide's steps ask a rule
// ("are evaluations de-duplicated?") instead of the mode ("is it paper?").
// The two big differences are policies of their own, chosen by mode beside
// these: the beam (BeamPolicyFor, beam.hpp) and the memory's pairs and
// eviction (MemoryPolicyFor, memory_policy.hpp).
//
// "paper" is the published loop: every rule off, no fixer. "default" turns
// every rule on, with FixAttempts(spec) fixes per sample.
//
// Thread safety: plain values.
#pragma once

#include "workflows/campaign_request.hpp"
#include "workflows/measurement.hpp"
#include "workflows/prompts.hpp"

namespace accelopt::workflows {

struct ModeRules {
  PromptMode prompts = PromptMode::kDefault;  // PromptModeOf(spec.mode)

  // Beam (select.hpp): members record their normalized code, noise and
  // lineage (carried, code_parent); the baseline's code is normalized.
  bool beam_lineage = true;

  // Memory (decide_memory.hpp).
  bool credit_experiences = true;       // ExperiencesCredited right after each beam
  bool skip_summarized_pairs = true;    // MemoryPairsSelected.duplicates: not summarized again
  bool tell_summarizer_speedup = true;  // the summarizer prompt names the pair's speedup
  bool published_summary_rule = false;  // ParseSummarizerReply(published_rule)
  bool drop_unhelpful_items = true;     // MemoryUpdated.dropped: "No optimization found", same content

  // Planners (decide_samples.hpp).
  bool planner_names_experiences = true;  // numbered memory; PlanProposed.used_experiences
  bool shuffle_profile_per_plan = true;   // else once per beam member, as published

  // Samples (decide_samples.hpp).
  bool dedup_evaluations = true;  // proposals carry normalized_sha256; EvaluationReused
  // A fenced block that lacks the kernel function: false = not usable code
  // (CandidateProposed.ok false, failure "missing_function", not evaluated,
  // its group dropped when no sample of it was evaluated); true (paper) =
  // evaluated like any code, so the judge fails it and, with no correct
  // sibling, the parent stands in (published accelopt/kernel_wrapper.py:70-75
  // @47e29a7 raises "No kernel function found" inside the profiled run).
  bool evaluate_missing_function = false;
  // The code is the reply's first fenced block, as published (paper); else
  // (default) the first block that defines the kernel function, reasoning
  // removed, a fence-less reply of code taken as is (ParseExecutorReply).
  bool first_code_block_only = false;
  int fix_attempts = 1;  // FixAttempts(spec); 0 = no fixer
  // paper: the samples of one plan are evaluated one after another, and once
  // one ends in "timeout" the plan's later samples are skipped
  // (EvaluationSkipped), as published scripts/executor.py:220-222 @47e29a7
  // (stage 2 profiles a plan's samples in order and breaks on "Hard timeout").
  bool skip_after_timeout = false;

  // Measurements (campaign_state.cpp's fold): paper ranks a backend with
  // the published timing (backend_traits.hpp) by its kept round's mean, as
  // published accelopt/kernel_wrapper.py:134-135 @47e29a7 does (latency =
  // runtime_stats["mean_ms"] of the round with the least rel_diff); else by
  // the median (LatencyFigureOf).
  bool rank_by_published_mean = false;

  // End of a problem (decide.cpp): BestSelected, then the best re-measured
  // beside the baseline, before ProblemCompleted.
  bool final_measure = true;

  // "sampling": repeated sampling at the same spend. Every iteration's beam
  // is the baseline alone (no search), no memory pairs are selected (no
  // summarizer, no memory), and no planner is asked: each of the N plans is
  // kSamplingPlan (PlanProposed without an LLM call), so every executor call
  // is an independent sample from the baseline; the fixer (error feedback)
  // is on unless search.fix_attempts is 0. T iterations of B=1 x N x K
  // samples, or until the budget (dollars, tokens, calls) is spent; the
  // best is the fastest correct sample of all iterations (BestSelected),
  // re-measured beside the baseline.
  bool restart_from_baseline = false;
  bool memory = true;  // also false with memory.scope "none", in any mode
  // false with memory.frozen: the bank's items are shown, but no pairs are
  // selected (no summarizer, no new items) and no credits go to the bank.
  bool learn_memory = true;
  bool ask_planner = true;
  bool best_of_all_iterations = false;
};

// REQUIRES: a known mode (Validate(spec)).
ModeRules ModeRulesOf(const CampaignSpec& spec);

// The latency a result of `backend` is read by under `rules`: kMean when
// rules.rank_by_published_mean and the backend has the published timing.
LatencyFigure LatencyFigureOf(const ModeRules& rules, const std::string& backend);

}  // namespace accelopt::workflows
