// Budgets: every LLM call and evaluation reserves its worst case against the
// campaign's caps *before* it is scheduled, and settles to its actual usage
// when it completes. Because in-flight work is always covered by its
// reservation, a cap is never overshot by work in flight:
//     spent + reserved <= cap   at every event boundary.
//
// Worst case of an LLM call:
//   tokens = PromptTokenBound(prompt bytes) + role.max_tokens
//   cost   = PromptTokenBound(...) * input price + max_tokens * output price
// PromptTokenBound is the byte count plus a fixed chat overhead: byte-level
// BPE tokenizers never produce more tokens than bytes. The bound holds as
// long as the runtime sends role.max_tokens as the output limit and the
// recorded prices are the provider's.
//
// Wall time is not reserved: it is checked against event timestamps
// (WallDeadlineUs in campaign.hpp).
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/json.hpp"
#include "workflows/campaign_request.hpp"

namespace accelopt::workflows {

// Chat-format overhead added to the prompt's byte count (role markers etc.).
inline constexpr int64_t kPromptOverheadTokens = 64;

int64_t PromptTokenBound(size_t prompt_bytes);

// Cost is kept in integer nano-USD so that sums do not depend on the order in
// which calls complete (a replay in another order decides the same).
struct Amounts {
  int64_t cost_nusd = 0;
  int64_t tokens = 0;
  int64_t llm_calls = 0;
  int64_t evaluations = 0;

  Amounts& operator+=(const Amounts& o);
  Amounts& operator-=(const Amounts& o);
  double cost_usd() const { return static_cast<double>(cost_nusd) / 1e9; }
  // Reads cost_nusd (not the informative cost_usd); missing fields are 0.
  static Result<Amounts> FromJson(const json& j);
};

// USD → nano-USD, rounded up (reservations, so they never undershoot) or to
// nearest (actual costs).
int64_t UsdToNanoCeil(double usd);
int64_t UsdToNanoRound(double usd);

// {"cost_nusd", "cost_usd" (informative), "tokens", "llm_calls", "evaluations"}
json ToJson(const Amounts& a);

// Worst case of one LLM call of `role` whose system+user prompt has
// `prompt_bytes` bytes. Cost is 0 when the role has no pricing.
Amounts LlmReservation(const RoleSpec& role, size_t prompt_bytes);
// One evaluation.
Amounts EvaluationReservation();
// Cost of actual usage at the role's prices (for checks and tests).
double CostOf(const RoleSpec& role, int64_t input_tokens, int64_t output_tokens);

// Budget names used in BudgetExhausted.resource.
inline constexpr const char kBudgetCost[] = "cost";
inline constexpr const char kBudgetTokens[] = "tokens";
inline constexpr const char kBudgetLlmCalls[] = "llm_calls";
inline constexpr const char kBudgetEvaluations[] = "evaluations";
inline constexpr const char kBudgetWallTime[] = "wall_time";

// Spent (settled) and reserved (in flight) amounts of one campaign.
struct BudgetLedger {
  Amounts spent;
  Amounts reserved;

  // The first cap that `r` would cross on top of spent + reserved, or
  // nullopt when it fits. Caps that are absent never block.
  std::optional<std::string> Blocks(const BudgetSpec& caps, const Amounts& r) const;
  void Reserve(const Amounts& r) { reserved += r; }
  // Releases a reservation and books what was actually used.
  void Settle(const Amounts& reservation, const Amounts& actual);
};

}  // namespace accelopt::workflows
