// RedistillState and its fold: one re-distillation of a memory bank as its
// own events say it is. A re-distillation lives in its bank's stream
// ("memory-<bank>", workflows/memory_bank.hpp): MemoryRedistillStarted (the
// pairs, the summarizer role, the generation it creates), one
// MemoryRedistillSummarized per pair, MemoryRedistillCompleted. The fold
// follows the one whose id it was made for and skips every other event of
// the stream (items added, credited, retired; other re-distillations).
//
// The bank's projection (ApplyBankEvent) folds the same events into the
// bank's view for the API; this fold is what the re-distillation's decider
// (workflows/redistill.hpp) reads, so a daemon killed midway resumes from
// the events alone.
//
// Thread safety: plain values; ApplyRedistill mutates its argument.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "workflows/campaign_request.hpp"
#include "workflows/event.hpp"
#include "workflows/memory_bank.hpp"

namespace accelopt::workflows {

inline constexpr const char kRedistillRunning[] = "running";
inline constexpr const char kRedistillCompleted[] = "completed";

struct RedistillState {
  std::string bank;    // the bank whose stream is folded
  std::string id;      // the re-distillation followed ("r1", ...)
  std::string status;  // "" before its MemoryRedistillStarted, then kRedistill*
  int from_generation = 0;
  int generation = 0;  // the generation it creates
  RoleSpec role;       // the summarizer
  std::vector<std::string> campaigns;
  std::vector<RedistillPair> pairs;
  std::set<int> done;         // indices of pairs with a recorded result
  int added = 0, failed = 0;  // results with an item, without one
  double cost_usd = 0;

  bool started() const { return !status.empty(); }
  bool finished() const { return status == kRedistillCompleted; }
  bool all_done() const { return started() && done.size() == pairs.size(); }
};

// The empty state of re-distillation `id` of `bank`.
RedistillState NewRedistillState(const std::string& bank, const std::string& id);

// Folds one event of the bank's stream. Events that are not this
// re-distillation's are skipped. A second start, a result before the start,
// after the completion, for a pair out of range or already done, a
// completion before every pair has a result, or malformed data is
// kCorruption; `state` may then be partly updated and must be discarded.
Status ApplyRedistill(RedistillState& state, const Event& event);

// Folds events (a bank stream, or a prefix of it) from the empty state.
Result<RedistillState> FoldRedistill(const std::string& bank, const std::string& id, const std::vector<Event>& events);

}  // namespace accelopt::workflows
