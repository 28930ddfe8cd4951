#include "workflows/mode_rules.hpp"
#include "workflows/backend_traits.hpp"

namespace accelopt::workflows {

ModeRules ModeRulesOf(const CampaignSpec& spec) {
  ModeRules r;
  r.prompts = PromptModeOf(spec.mode);
  r.fix_attempts = FixAttempts(spec);
  r.memory = spec.memory.scope != "none";
  r.learn_memory = r.memory && !spec.memory.frozen;
  if (spec.mode == kModeSampling) {
    r.restart_from_baseline = true;
    r.memory = false;
    r.learn_memory = false;
    r.ask_planner = false;
    r.best_of_all_iterations = true;
    r.credit_experiences = false;
    r.planner_names_experiences = false;
    return r;
  }
  if (spec.mode != kModePaper) return r;
  r.beam_lineage = false;
  r.credit_experiences = false;
  r.skip_summarized_pairs = false;
  r.tell_summarizer_speedup = false;  // the published code never filled it in
  r.published_summary_rule = true;
  r.drop_unhelpful_items = false;
  r.planner_names_experiences = false;
  r.shuffle_profile_per_plan = false;
  r.dedup_evaluations = false;
  r.evaluate_missing_function = true;
  r.first_code_block_only = true;
  r.skip_after_timeout = true;
  r.final_measure = false;
  r.rank_by_published_mean = true;
  return r;
}

LatencyFigure LatencyFigureOf(const ModeRules& rules, const std::string& backend) {
  return rules.rank_by_published_mean && TraitsOf(backend).published_timing ? LatencyFigure::kMean
                                                                            : LatencyFigure::kMedian;
}

}  // namespace accelopt::workflows
