// MemoryBanks: the daemon's side of memory banks (workflows/memory_bank.hpp).
//
// The banks' state is the store projection "memory_banks", a fold of every
// "memory-<bank>" stream (ApplyBankEvent), caught up to the log on every
// read, checkpointed by the store, and droppable/rebuildable from the log.
// Campaigns write to banks through their own atomic batches (side events);
// this class reads the banks and records what people ask for: imports and
// retirements. Re-distillations are redistiller.hpp's.
//
// Thread safety: all methods are thread-safe (the log serializes appends;
// reads are snapshots).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "store/event_log.hpp"
#include "store/event_types.hpp"
#include "store/projection.hpp"
#include "workflows/memory_bank.hpp"

namespace accelopt::daemon {

class MemoryBanks {
 public:
  static constexpr const char kProjection[] = "memory_banks";
  // The projection to pass in EventLog::Options::projections.
  static std::shared_ptr<const store::Projection> MakeProjection();
  // Registers the bank event types.
  static void RegisterEventTypes(store::EventTypeRegistry& registry);

  explicit MemoryBanks(store::EventLog* log) : log_(log) {}

  // The projection state (bank -> bank), caught up to the log.
  Result<json> State() const;
  // One bank; kNotFound when it has no events.
  Result<workflows::BankView> Read(const std::string& bank) const;
  // One bank, or an empty one (generation 1, version 0) when it has none.
  Result<workflows::BankView> ReadOrEmpty(const std::string& bank) const;
  // A summary per bank: {bank, version, generation, items (active), retired,
  // tainted, generations, campaigns, redistilling}.
  Result<json> List() const;

  // Adds the items of `doc` (ParseImport's formats) to the bank's current
  // generation, creating the bank; items already present (same id) are
  // skipped. Returns {bank, added, skipped, version}.
  Result<json> Import(const std::string& bank, const json& doc, const std::string& format);
  // Retires items (kNotFound naming an unknown id; kInvalidArgument for an
  // empty list). Returns {bank, retired: [ids], tainted: [ids now marked]}.
  Result<json> Retire(const std::string& bank, const std::vector<std::string>& ids, const std::string& reason);
  // Drops the projection and rebuilds it from the log; returns
  // {rebuilt: true, equal: <the rebuilt state equals the live one>, banks, events}.
  Result<json> Rebuild();

  // Appends events to a bank's stream at any version.
  Status Append(const std::string& bank, std::vector<workflows::Event> events, std::vector<std::string> blobs = {});

 private:
  store::EventLog* log_;
};

}  // namespace accelopt::daemon
