#include "scripted_completion.hpp"

#include <algorithm>

#include "base/sha256.hpp"
#include "workflows/budget.hpp"

namespace accelopt::workflows::testing {

ScriptedOutcome ScriptedCompletion(const CampaignSpec& spec, const Script& script, const ActivityRequest& a) {
  if (a.kind == ActivityKind::kEvaluation) return {EvaluationCompletedEvent(a.activity_id, script.evaluate(a)), {}};
  ScriptedReply reply = script.llm(a);
  const RoleSpec& role = spec.Role(a.role);
  const std::string prompt = a.request.at("system").get<std::string>() + a.request.at("user").get<std::string>();
  LlmUsage usage;
  if (script.worst_case_usage) {
    usage.input_tokens = PromptTokenBound(prompt.size());
    usage.output_tokens = role.max_tokens;
  } else {
    usage.input_tokens = static_cast<int64_t>(prompt.size() / 4);
    usage.output_tokens = std::min<int64_t>(role.max_tokens, reply.text.size() / 4 + 1);
  }
  const double cost = CostOf(role, usage.input_tokens, usage.output_tokens);
  if (!reply.ok && !reply.partial.empty()) {
    Event e = LlmCallFailedEvent(a.activity_id, reply.error, usage, cost, 1);
    e.data["error_kind"] = "truncated";
    e.data["partial_sha256"] = Sha256Hex(reply.partial);
    return {std::move(e), reply.partial};
  }
  if (!reply.ok) return {LlmCallFailedEvent(a.activity_id, reply.error, usage, cost, 3), {}};
  return {LlmCallCompletedEvent(a.activity_id, Sha256Hex(reply.text), usage, cost, 1.5, 1, role.provider, role.model),
          reply.text};
}

}  // namespace accelopt::workflows::testing
