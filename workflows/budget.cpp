#include "workflows/budget.hpp"

#include <cmath>

namespace accelopt::workflows {

int64_t PromptTokenBound(size_t prompt_bytes) { return static_cast<int64_t>(prompt_bytes) + kPromptOverheadTokens; }

int64_t UsdToNanoCeil(double usd) {
  if (!(usd > 0)) return 0;
  return static_cast<int64_t>(std::ceil(usd * 1e9 - 1e-6));
}

int64_t UsdToNanoRound(double usd) {
  if (!(usd > 0)) return 0;
  return static_cast<int64_t>(std::llround(usd * 1e9));
}

Amounts& Amounts::operator+=(const Amounts& o) {
  cost_nusd += o.cost_nusd;
  tokens += o.tokens;
  llm_calls += o.llm_calls;
  evaluations += o.evaluations;
  return *this;
}

Amounts& Amounts::operator-=(const Amounts& o) {
  cost_nusd -= o.cost_nusd;
  tokens -= o.tokens;
  llm_calls -= o.llm_calls;
  evaluations -= o.evaluations;
  return *this;
}

json ToJson(const Amounts& a) {
  return {{"cost_nusd", a.cost_nusd},
          {"cost_usd", a.cost_usd()},
          {"tokens", a.tokens},
          {"llm_calls", a.llm_calls},
          {"evaluations", a.evaluations}};
}

Result<Amounts> Amounts::FromJson(const json& j) {
  Amounts a;
  ACCELOPT_RETURN_IF_ERROR(DecodeJsonFields("amounts", [&] {
    a.cost_nusd = j.value("cost_nusd", int64_t{0});
    a.tokens = j.value("tokens", int64_t{0});
    a.llm_calls = j.value("llm_calls", int64_t{0});
    a.evaluations = j.value("evaluations", int64_t{0});
  }));
  return a;
}

double CostOf(const RoleSpec& role, int64_t input_tokens, int64_t output_tokens) {
  if (!role.pricing) return 0;
  return (static_cast<double>(input_tokens) * role.pricing->input_usd_per_mtok +
          static_cast<double>(output_tokens) * role.pricing->output_usd_per_mtok) /
         1e6;
}

Amounts LlmReservation(const RoleSpec& role, size_t prompt_bytes) {
  Amounts a;
  const int64_t input = PromptTokenBound(prompt_bytes);
  a.tokens = input + role.max_tokens;
  a.cost_nusd = UsdToNanoCeil(CostOf(role, input, role.max_tokens));
  a.llm_calls = 1;
  return a;
}

Amounts EvaluationReservation() {
  Amounts a;
  a.evaluations = 1;
  return a;
}

std::optional<std::string> BudgetLedger::Blocks(const BudgetSpec& caps, const Amounts& r) const {
  if (caps.max_cost_usd) {
    const int64_t cap = static_cast<int64_t>(std::floor(*caps.max_cost_usd * 1e9 + 1e-6));
    if (spent.cost_nusd + reserved.cost_nusd + r.cost_nusd > cap) return std::string(kBudgetCost);
  }
  if (caps.max_tokens && spent.tokens + reserved.tokens + r.tokens > *caps.max_tokens) {
    return std::string(kBudgetTokens);
  }
  if (caps.max_llm_calls && spent.llm_calls + reserved.llm_calls + r.llm_calls > *caps.max_llm_calls) {
    return std::string(kBudgetLlmCalls);
  }
  if (caps.max_evaluations && spent.evaluations + reserved.evaluations + r.evaluations > *caps.max_evaluations) {
    return std::string(kBudgetEvaluations);
  }
  return std::nullopt;
}

void BudgetLedger::Settle(const Amounts& reservation, const Amounts& actual) {
  reserved -= reservation;
  spent += actual;
}

}  // namespace accelopt::workflows
