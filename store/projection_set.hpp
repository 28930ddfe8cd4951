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
#include <string>
#include <vector>

#include "base/mutex.hpp"
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
    std::shared_ptr<const Projection> projection;  // fixed after Add
    Mutex mu;
    json state ACCELOPT_GUARDED_BY(mu);
    uint64_t checkpoint ACCELOPT_GUARDED_BY(mu) = 0;
    uint64_t persisted ACCELOPT_GUARDED_BY(mu) = 0;  // checkpoint last written
    bool ever_persisted ACCELOPT_GUARDED_BY(mu) = false;
    Status error ACCELOPT_GUARDED_BY(mu);  // sticky fold error
    rocksdb::ColumnFamilyHandle* cf ACCELOPT_GUARDED_BY(mu) = nullptr;
  };

  Status ApplyOne(Entry& e, const EventRecord& event) ACCELOPT_REQUIRES(e.mu);
  Status CatchUp(Entry& e, uint64_t last_global) ACCELOPT_REQUIRES(e.mu);
  Status Persist(Entry& e) ACCELOPT_REQUIRES(e.mu);
  Status Reset(Entry& e) ACCELOPT_REQUIRES(e.mu);
  // OnCommitted's work on one projection, whose mutex it took.
  void FoldCommitted(Entry& e, const std::vector<EventRecord>& events, uint64_t last_global) ACCELOPT_REQUIRES(e.mu);

  StoreDb* db_;
  Reader reader_;
  uint64_t checkpoint_every_;
  std::map<std::string, std::unique_ptr<Entry>> entries_;  // fixed after open
};

}  // namespace accelopt::store
