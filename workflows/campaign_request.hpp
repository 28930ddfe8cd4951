// A campaign request (the file was campaign_spec.*, a name that read like a
// test's): CampaignSpec, what a user asks for — problems, search parameters, one
// model per role, a seed and a budget — and its validation.
//
// JSON form (every key optional unless marked; unknown keys are an error so
// typos do not silently fall back to defaults):
//
//   {"mode": "default",                      // search mode: "default" | "paper"
//    "suite": "suites/cpu",                  // prefix for bare problem names
//    "problems": ["silu", "suites/cpu/rmsnorm"],          // REQUIRED, non-empty
//    "search": {"T": 16, "B": 6, "N": 12, "K": 2, "TopK": 8, "ExpN": 16,
//               "positive_threshold": 1.04, "negative_threshold": 1.15,
//               "fix_attempts": 1},          // default 1 in "default", 0 in "paper"
//    "roles": {                                           // REQUIRED, all three
//      "planner":    {"provider": "openai", "model": "gpt-x",   // both REQUIRED
//                     "temperature": 1.0, "max_tokens": 8192,
//                     "reasoning": null,                   // passed through
//                     "pricing": {"input_usd_per_mtok": 1.0,
//                                 "output_usd_per_mtok": 4.0}},
//      "executor": {...}, "summarizer": {...}},
//    "seed": 0,
//    "budget": {"max_cost_usd": 5.0, "max_tokens": 1000000, "max_llm_calls": 500,
//               "max_evaluations": 1000, "max_wall_s": 3600,    // absent = no cap
//               "max_provider_wait_s": 1800},  // absent = until max_wall_s (or forever)
//    "evaluation": {"timeout_s": 180},      // settings passed to every evaluation
//    "memory": {"scope": "problem",         // "problem" | "campaign" | "bank"
//               "bank": "nightly-cpu"}}     // REQUIRED with scope "bank", else absent
//
// Modes: "paper" is the published search (ALGORITHM.md), kept exactly for
// comparison runs. "default" (the mode of a spec that names none) adds
// elitism, de-duplication of identical code, noise-aware comparisons, a
// fixer, credited memory and a final re-measurement (campaign.hpp,
// docs/events.md).
//
// Memory scope (workflows/memory_bank.hpp): "problem" (the default, the
// paper: each problem's memory lives in the campaign's own events),
// "campaign" (the problems of the campaign share the bank "campaign-<id>"),
// or "bank" (the named bank, shared with every campaign that names it: the
// nightly preset's choice). With a bank, each iteration's planners see a
// snapshot of it (MemorySnapshotTaken) and new items are added to it.
//
// `pricing` is normally filled in by the runtime from llm/'s price table
// before the campaign starts, so the recorded spec holds the prices used for
// reservations. A cost cap needs pricing on every role.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::workflows {

// Paper defaults (ALGORITHM.md, NKIBench runs).
struct SearchParams {
  int T = 16;                        // iterations, iteration 0 included
  int B = 6;                         // beam width
  int N = 12;                        // plans per beam member
  int K = 2;                         // executor samples per plan
  int TopK = 8;                      // new memory items per iteration
  int ExpN = 16;                     // memory capacity
  double positive_threshold = 1.04;  // speedup > this makes a positive item
  double negative_threshold = 1.15;  // speedup < 1/this makes a negative item
  // Fix attempts per executor sample after a compile error, wrong result,
  // runtime error or timeout; absent = the mode's default (FixAttempts()).
  std::optional<int> fix_attempts;
};

struct Pricing {
  double input_usd_per_mtok = 0;
  double output_usd_per_mtok = 0;
};

struct RoleSpec {
  std::string provider;
  std::string model;
  double temperature = 1.0;
  int max_tokens = 8192;     // also the output bound used for reservations
  json reasoning = nullptr;  // provider-specific (e.g. "high"); null = default
  std::optional<Pricing> pricing;
};

// A cap that is absent does not limit. Present caps must be > 0.
struct BudgetSpec {
  std::optional<double> max_cost_usd;
  std::optional<int64_t> max_tokens;
  std::optional<int64_t> max_llm_calls;
  std::optional<int64_t> max_evaluations;
  std::optional<double> max_wall_s;
  // Not a resource: how long the campaign waits for an unavailable LLM
  // provider (daemon/provider_gate.hpp) before it fails with that reason.
  // Absent: until the wall-time budget ends it, or forever without one.
  std::optional<double> max_provider_wait_s;
};

inline constexpr const char kModePaper[] = "paper";
inline constexpr const char kModeDefault[] = "default";
// Repeated sampling (mode_rules.hpp): the baseline of "search vs sampling".
inline constexpr const char kModeSampling[] = "sampling";

inline constexpr const char kRolePlanner[] = "planner";
inline constexpr const char kRoleExecutor[] = "executor";
inline constexpr const char kRoleSummarizer[] = "summarizer";

struct MemorySpec {
  // "none": no memory (the memory-off arm: no pairs, no summarizer, the
  // planner shown nothing; ModeRules::memory).
  std::string scope = "problem";  // "problem" | "campaign" | "bank" | "none"
  std::string bank;               // with scope "bank"
  // With scope "bank": read the bank, never write it. The planners see the
  // bank's selection (MemorySnapshotTaken) as usual, but the campaign
  // selects no pairs (no summarizer, no new items) and credits nothing to
  // the bank (ModeRules::learn_memory): the arm of a transfer experiment
  // that applies memory learned elsewhere, unchanged. Nothing stops another
  // campaign from writing the same bank meanwhile; an experiment gives each
  // seed a bank of its own (docs/experiments.md).
  bool frozen = false;
};

// A replay of a recorded campaign (acceloptctl submit --replay-from): each
// LLM activity takes the recorded reply of the activity at the same path
// within the recorded campaign (activity_id::WithinCampaign), and only when
// the call builds on the same beam member (plan, exec, fix) or the same
// memory pair (summ) as there; evaluations run on this host's judge. Where
// there is no such reply (the run diverged: another beam, more iterations),
// on_miss "stop" fails the campaign naming the activity, "live" calls the
// role's model. Defaults: on_miss "stop".
struct ReplaySpec {
  std::string from;              // the recorded campaign's id
  std::string on_miss = "stop";  // "stop" | "live"
};

// The experiment a campaign belongs to (acceloptctl experiment submit): one
// arm x seed of it. Only a tag: the campaign runs as any other, and the
// experiment's report groups campaigns by it.
struct ExperimentTag {
  std::string id;   // the experiment's name
  std::string arm;  // the arm's name
};

struct CampaignSpec {
  std::string mode = kModeDefault;
  std::vector<std::string> problems;  // resolved ids, e.g. "suites/cpu/silu"
  SearchParams search;
  RoleSpec planner, executor, summarizer;
  uint64_t seed = 0;
  BudgetSpec budget;
  json evaluation = json::object();
  MemorySpec memory;
  std::optional<ReplaySpec> replay;         // unset: every LLM call goes to its model
  std::optional<ExperimentTag> experiment;  // unset: a campaign of its own

  // REQUIRES: role is one of kRolePlanner/kRoleExecutor/kRoleSummarizer.
  const RoleSpec& Role(const std::string& role) const;
};

// 0 in "paper" (the published loop has no fixer, whatever the spec or the
// daemon's search defaults say); else search.fix_attempts, default 1.
int FixAttempts(const CampaignSpec& spec);

// One role's JSON form ("roles.<name>" above), checked on its own: provider
// and model present, max_tokens >= 1, temperature >= 0.
Result<RoleSpec> ParseRoleSpec(const json& j, const std::string& name);
json ToJson(const RoleSpec& role);

// A memory bank's name (memory.bank above, and every bank's stream,
// workflows/memory_bank.hpp): 1..200 characters of [A-Za-z0-9._-], not
// starting with '.' or '-'.
Status ValidateBankName(const std::string& bank);

// Parses the JSON form above (bare problem names get "<suite>/" in front).
// Type errors and unknown keys are kInvalidArgument naming the key.
Result<CampaignSpec> ParseCampaignSpec(const json& j);
json ToJson(const CampaignSpec& spec);

// Asks the runtime whether a provider/model pair exists (llm/'s provider
// table). Return a non-ok Status with a clear message when it does not.
using ModelCheck = std::function<Status(const std::string& provider, const std::string& model)>;

// Checks everything that can be checked without I/O: known mode ("default"
// or "paper"), fix_attempts >= 0, non-empty
// problems without duplicates, positive search parameters (T,B,N,K,TopK,ExpN
// >= 1, thresholds >= 1, TopK <= ExpN), every role with provider and model,
// max_tokens >= 1, temperature >= 0, a known memory scope with a valid bank
// name exactly when the scope is "bank", pricing >= 0 and present on every role
// when max_cost_usd is set, budget caps > 0. `check_model` (may be empty)
// is asked for each role. Returns the first error, with the field's name.
Status Validate(const CampaignSpec& spec, const ModelCheck& check_model = {});

}  // namespace accelopt::workflows
