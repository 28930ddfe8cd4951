// ProjectionSet: the registered projections of one EventLog, their in-memory
// state and its persistence. Internal to store/.
//
// Each projection lives in column family "projection.<name>" with keys
//   "version"    decimal text: Projection::Version() that wrote the state
//   "checkpoint" u64 BE: last global position folded in
//   "state"      compact JSON
// all three written in one WriteBatch, so the state always matches its
// checkpoint. The log stays the source of truth: a state behind the log is
// caught up by folding the events after its checkpoint; a state of another
// version (or unreadable) is dropped and rebuilt.
//
// Thread safety: all methods are thread-safe; each projection has its own
// mutex. OnCommitted never blocks on a busy projection (it skips it; the
// next call or read catches it up from the log).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "store/event.hpp"
#include "store/projection.hpp"
#include "store/store_db.hpp"

namespace accelopt::store {

class ProjectionSet {
 public:
  // Calls fn for each committed, upcast event in [from, to], in order;
  // kCorruption if any is missing.
  using Reader = std::function<Status(uint64_t from, uint64_t to, const std::function<Status(EventRecord&)>& fn)>;

  ProjectionSet(StoreDb* db, Reader reader, uint64_t checkpoint_every);

  // Registers a projection and loads its stored state (or resets it).
  // Call before the log accepts appends.
  Status Add(std::shared_ptr<const Projection> projection);
  bool Has(const std::string& name) const { return entries_.count(name) > 0; }

  // Folds freshly committed events (global order) into every idle projection.
  void OnCommitted(const std::vector<EventRecord>& events, uint64_t last_global);
  // Catches every projection up to `last_global`; the first fold error.
  Status CatchUpAll(uint64_t last_global);
  Result<ProjectionSnapshot> Read(const std::string& name, uint64_t last_global);
  Status Rebuild(const std::string& name, uint64_t last_global);
  Status PersistAll();

 private:
  struct Entry {
    std::shared_ptr<const Projection> projection;
    std::mutex mu;
    json state;
    uint64_t checkpoint = 0;
    uint64_t persisted = 0;  // checkpoint last written
    bool ever_persisted = false;
    Status error;            // sticky fold error
    rocksdb::ColumnFamilyHandle* cf = nullptr;
  };

  Status ApplyOne(Entry& e, const EventRecord& event);
  Status CatchUp(Entry& e, uint64_t last_global);
  Status Persist(Entry& e);
  Status Reset(Entry& e);

  StoreDb* db_;
  Reader reader_;
  uint64_t checkpoint_every_;
  std::map<std::string, std::unique_ptr<Entry>> entries_;  // fixed after open
};

}  // namespace accelopt::store
