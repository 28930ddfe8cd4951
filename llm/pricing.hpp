// Cost of a response from the provider's price table.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "llm/config.hpp"
#include "llm/types.hpp"

namespace accelopt::llm {

// USD for `input` prompt tokens (of which `cached` were cache hits) and
// `output` completion tokens at `price`:
//   ((input - cached) * input_per_mtok + cached * cached_input_per_mtok
//    + output * output_per_mtok) / 1e6
double CostUsd(const ModelPrice& price, int64_t input, int64_t output, int64_t cached);

// Fills response->cost_usd and cost_known from config.models[response model],
// looking up the requested model first and the server-reported one second.
void ApplyPrice(const ProviderConfig& config, const std::string& requested_model, LlmResponse* response);

// A reply that carries no usage (no tokens in or out) gets an estimate of
// kBytesPerToken bytes per token: input from the system and user prompts,
// output from the text and reasoning, marked usage_estimated. The first such
// reply of each provider logs one warning. Budgets then hold on the
// estimate instead of on zero.
inline constexpr int64_t kBytesPerToken = 4;
void EstimateMissingUsage(const std::string& provider, const LlmRequest& request, LlmResponse* response);

// EstimateMissingUsage, then ApplyPrice: what every provider does with a
// reply (or a partial one) before delivering it.
void ApplyUsageAndPrice(const ProviderConfig& config, const LlmRequest& request, LlmResponse* response);

}  // namespace accelopt::llm
