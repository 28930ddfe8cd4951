// An experiment as acceloptctl sees it: the file (arms x seeds over one
// campaign spec, with an optional learning phase) and the tagged campaigns
// that are the experiment on the daemon. Nothing else is stored: list, get,
// wait, cancel, extend and report read the campaigns (GET /v1/campaigns).
//
// An experiment file:
//   {"id": "memory-ablation",
//    "spec": {...a campaign spec...},        (or "spec_file": "quick.json",
//                                             relative to the experiment file)
//    "seeds": [1, 2, 3],
//    "learn": {"overlay": {...}},            (optional: see below)
//    "arms": [{"name": "memory-off", "overlay": {"memory": {"scope": "none"}}},
//             {"name": "memory-on",  "overlay": {}}]}
// Each arm x seed is one campaign: the spec, the arm's overlay merged into it
// (JSON merge patch), "seed" set, "{seed}" in any string of it replaced by
// the seed (a bank per seed: "bank": "transfer-{seed}"), and "experiment":
// {id, arm} as its tag, submitted with the idempotency key
// experiment:<id>:<arm>:<seed> (submitting the file again submits only what
// is missing).
//
// "learn" (cross-kernel transfer): per seed one more campaign, arm "learn",
// the spec with the learn overlay (e.g. other problems, memory scope "bank",
// "bank": "transfer-{seed}"), submitted first; the arms of a seed are
// submitted only once its learn campaign completed (submit waits for it, and
// does not submit the arms of a seed whose learning did not complete). The
// learn arm is never compared: it makes the memory that a frozen arm
// ("memory": {"scope": "bank", "bank": "transfer-{seed}", "frozen": true})
// applies unchanged. "learn" is a reserved arm name.
//
// Thread safety: plain values and functions; the calls take an ApiClient
// (one thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "cli/api_client.hpp"

namespace accelopt::cli {

inline constexpr const char kLearnArm[] = "learn";

struct ExperimentArm {
  std::string name;
  json overlay = json::object();
  // Equal spend: the name of an earlier arm. This arm's campaign of a seed
  // is submitted once that arm's campaign of the same seed ended, with its
  // budget set to exactly what that campaign spent: max_cost_usd = its
  // dollars, or max_tokens = its tokens when it cost nothing (zero-priced
  // models), and no call cap (EqualSpendOverlay).
  std::string spend_of;
};

// `overlay` with its budget set to the spend of a reference campaign
// (`spend`: {"cost_usd", "tokens", ...} as GET /v1/campaigns/ID reports it):
// max_cost_usd when it cost money, else max_tokens; max_llm_calls lifted
// (1000000) so that only the spend binds. *what says it in words.
json EqualSpendOverlay(const json& overlay, const json& spend, std::string* what);

struct ExperimentFile {
  std::string id;
  json spec;  // the campaign spec every arm starts from
  std::vector<int64_t> seeds;
  std::vector<ExperimentArm> arms;    // at least two, never named "learn"
  std::optional<json> learn_overlay;  // the learning phase's overlay, if any
};

// Reads and checks an experiment file (`env` may be null: the real files).
// Every error names the file and the field.
Result<ExperimentFile> ParseExperimentFile(Env* env, const std::string& path);

// The campaign spec of `arm` (its overlay) for `seed`: merged, "{seed}"
// substituted, seed and tag set.
json ExperimentCampaignSpec(const ExperimentFile& e, const std::string& arm, const json& overlay, int64_t seed);
// Its idempotency key: experiment:<id>:<arm>:<seed>.
std::string ExperimentKey(const std::string& id, const std::string& arm, int64_t seed);

// The experiment's campaigns (GET /v1/campaigns, tagged with `id`), oldest
// first. nullopt when the call failed (the error was printed; *exit_code
// says which) or, with `must_exist`, when no campaign has the tag ("no
// experiment 'ID'", kExitNotFound).
std::optional<std::vector<json>> ExperimentCampaigns(ApiClient& api, const std::string& id, int* exit_code,
                                                     bool must_exist = false);

// A campaign (as GET /v1/campaigns lists it) that is neither running nor
// paused.
bool CampaignEnded(const json& campaign);

// The report of an experiment's campaigns (cli/experiment_report.cpp):
// text on stdout, `-o json`, or `--html FILE`.
struct Options;
int ExperimentReport(ApiClient& api, const Options& o, const std::string& id);
// The winners of every arm re-measured beside the reference arm's, each pair
// in one judge run (cli/experiment_remeasure.cpp).
int ExperimentRemeasure(ApiClient& api, const Options& o, const std::string& id);

}  // namespace accelopt::cli
