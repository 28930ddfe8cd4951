// Memory banks: named, append-only collections of memory items that outlive
// a campaign. A bank is the stream "memory-<bank>"; its state is a fold of
// that stream, kept by the runtime as the store projection "memory_banks"
// (one JSON object, bank name -> bank), so it can be dropped and rebuilt
// from the log at any time.
//
// Who writes what (docs/events.md, "Memory bank events"):
//  * a campaign whose memory scope is "bank" or "campaign" appends
//    MemoryItemsAdded / MemoryItemsCredited to the bank in the same atomic
//    batch as its own MemoryUpdated / ExperiencesCredited (Command::
//    side_events), and records what it read in MemorySnapshotTaken, so its
//    replay never depends on the bank's later changes;
//  * people: imports (MemoryItemsAdded, source "import") and retirements
//    (MemoryItemsRetired);
//  * a re-distillation: MemoryRedistillStarted, one MemoryRedistillSummarized
//    per pair, MemoryRedistillCompleted, which makes its generation current.
//
// Generations: items belong to a generation (1 for everything a campaign or
// an import adds before any re-distillation). A completed re-distillation
// creates generation g+1 from the pairs of chosen campaigns; new items then
// go to the current generation, and older generations stay readable.
//
// Retirement: a retired item is never shown to a planner again. Items derived
// from it (MemoryItem::derived_from, transitively, also those added later)
// are marked "tainted_by" it; they stay in use until retired themselves.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "workflows/event.hpp"
#include "workflows/memory_policy.hpp"

namespace accelopt::workflows {

namespace bank_event {
inline constexpr const char kMemoryItemsAdded[] = "MemoryItemsAdded";
inline constexpr const char kMemoryItemsCredited[] = "MemoryItemsCredited";
inline constexpr const char kMemoryItemsRetired[] = "MemoryItemsRetired";
inline constexpr const char kMemoryRedistillStarted[] = "MemoryRedistillStarted";
inline constexpr const char kMemoryRedistillSummarized[] = "MemoryRedistillSummarized";
inline constexpr const char kMemoryRedistillCompleted[] = "MemoryRedistillCompleted";
}  // namespace bank_event

// Every bank event type with its schema version (for the store's registry).
const std::vector<EventTypeInfo>& MemoryBankEventTypes();

// Memory scopes (CampaignSpec::memory.scope).
inline constexpr const char kScopeProblem[] = "problem";    // the paper: per problem, in the campaign
inline constexpr const char kScopeCampaign[] = "campaign";  // one bank per campaign
inline constexpr const char kScopeBank[] = "bank";          // a named bank shared across campaigns

// ValidateBankName, the rule of a bank's name: campaign_request.hpp (a
// campaign request is where a bank is first named).
std::string MemoryBankStream(const std::string& bank);  // "memory-<bank>"
// The bank of a "memory-<bank>" stream, or nullopt for other streams.
std::optional<std::string> BankOfStream(const std::string& stream);

// Folds one event of stream "memory-<bank>" at stream `version` into the
// projection state `banks` (an object, bank -> bank state; see
// docs/events.md for its shape). Unknown item ids in credits or
// retirements are ignored (an item may live in another generation's
// export); an unknown event type or malformed data is kCorruption.
Status ApplyBankEvent(json& banks, const std::string& bank, uint64_t version, const Event& e);

// One item as a bank holds it.
struct BankItem {
  MemoryItem item;  // credit: the bank's total (all campaigns)
  int generation = 1;
  int64_t seq = 0;       // order of addition within the bank
  std::string source;    // "campaign" | "import" | "redistill"
  std::string campaign;  // the campaign that added it (source "campaign")
  int64_t added_at_us = 0;
  bool retired = false;
  std::string retired_reason;
  std::vector<std::string> tainted_by;  // retired items it derives from
};

struct RedistillPair {
  std::string campaign;
  int problem_index = 0;  // in that campaign
  std::string problem;    // problem id
  int iteration = 0;
  int pair_index = 0;  // in the iteration's MemoryPairsSelected
  MemoryPair pair;

  static Result<RedistillPair> FromJson(const json& j);  // kInvalidArgument on a wrong shape
};
json ToJson(const RedistillPair& p);

struct RedistillRun {
  std::string id;
  std::string status;  // "running" | "completed"
  int from_generation = 1;
  int generation = 2;  // the generation it creates
  json role;           // RoleSpec as JSON (provider, model, ...)
  std::vector<RedistillPair> pairs;
  std::vector<int> done;  // indices of pairs with a recorded result
  int added = 0, failed = 0;
  double cost_usd = 0;
};

struct BankView {
  std::string name;
  uint64_t version = 0;              // stream version folded
  int generation = 1;                // current
  std::vector<BankItem> items;       // every generation, in seq order
  json generations = json::array();  // [{generation, source, redistill_id, at_us}]
  std::vector<RedistillRun> redistills;
  int ActiveCount() const;  // current generation, not retired
};

// The bank `bank` of the projection state; kNotFound when it has no events.
Result<BankView> ReadBank(const json& banks, const std::string& bank);
// Every bank's name, sorted.
std::vector<std::string> BankNames(const json& banks);

// The items a planner sees from a bank: the current generation, not retired,
// not "no optimization"; the most credited first, then those of `problem`,
// then the newest; at most `limit`.
std::vector<MemoryItem> SelectForPrompt(const BankView& bank, const std::string& problem, int limit);

// Export of one generation (default: the current one), retired items
// included and marked:
//   {"format": "accelopt-memory-bank", "format_version": 1, "bank", "generation",
//    "items": [MemoryItem + {generation, source, campaign, retired, ...}]}
json ExportBank(const BankView& bank, std::optional<int> generation = std::nullopt);

// Items to import from `doc`. `format`: "bank" (ExportBank's), "accelopt"
// (AccelOpt's experience list: an array, or {"experiences": [...]}, of the
// published items; mapping in accelopt_import.hpp), or "auto" (bank when the
// document says so). kInvalidArgument naming the entry that is wrong.
Result<std::vector<MemoryItem>> ParseImport(const json& doc, const std::string& format, const std::string& id_prefix);

// The MemoryItemsAdded event for items added by `source` ("campaign",
// "import", "redistill"); `extra` fields (campaign, problem, iteration, ...)
// are merged into its data.
Event MemoryItemsAddedEvent(const std::string& source, const std::vector<MemoryItem>& items,
                            const json& extra = json::object());

}  // namespace accelopt::workflows
