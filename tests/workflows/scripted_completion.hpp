// The completion event of a scripted LLM call or evaluation (test and bench
// runtimes: sim.hpp, bench/campaign/): the reply from `script`, its usage
// (bytes/4 in and out by default, the reservation's bounds with
// script.worst_case_usage) and cost at the role's price, and the reply text
// for the caller to store as a blob before appending the event. Memory
// activities are not scripted (the caller reads its banks).
#pragma once

#include <optional>
#include <string>

#include "sim.hpp"

namespace accelopt::workflows::testing {

struct ScriptedOutcome {
  Event event;                       // recorded_at_us left for the caller
  std::optional<std::string> reply;  // a completed call's reply: store it as a blob
};

// LlmCallCompletedEvent / LlmCallFailedEvent for a kLlm activity,
// EvaluationCompletedEvent for a kEvaluation one. REQUIRES: a.kind is one
// of those two.
ScriptedOutcome ScriptedCompletion(const CampaignSpec& spec, const Script& script, const ActivityRequest& a);

}  // namespace accelopt::workflows::testing
