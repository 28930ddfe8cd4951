// Decide's sample loop (campaign.hpp), one for both modes: for each beam
// member b and plan n, the planner call and its PlanProposed; for each
// sample k of a plan, the executor call, CandidateProposed, its evaluation,
// and its fixes (FixPrompt, FixProposed, the fixed version's evaluation).
// Items are visited in (beam, plan, sample) order and each moves at most
// one step per round.
//
// The modes differ only in ModeRules (mode_rules.hpp):
//  * dedup_evaluations ("default"): proposals carry the normalized code's
//    hash, and a sample whose code was evaluated before takes that result
//    (EvaluationReused) instead of a new evaluation. It looks at its own
//    earlier versions, the beam's measurements, the first versions of the
//    samples before it (and waits until those are proposed, so the choice
//    does not depend on the order replies arrive in), then earlier
//    iterations. Off ("paper"): every proposed sample is evaluated.
//  * fix_attempts: a failed sample goes back to the executor up to that
//    many times; 0 ("paper") never fixes.
//  * planner_names_experiences, shuffle_profile_per_plan, prompts: what the
//    planner is shown and asked, and what PlanProposed records.
//
// Steps append to the Round (decide_round.hpp: pure, one thread).
#pragma once

#include "base/status.hpp"
#include "workflows/campaign_state.hpp"
#include "workflows/decide_round.hpp"

namespace accelopt::workflows {

// One step of every plan and sample of iteration i of problem p. Planners
// are scheduled only for measured beam members and once `memory_ready`
// (decide_memory.hpp: MemoryReady).
Status StepSamples(Round& round, int p, int i, bool memory_ready);

// The sample's last version failed in a way a fix may mend and it has
// attempts left.
bool FixDue(const CandidateRecord& c, int fix_attempts);

}  // namespace accelopt::workflows
