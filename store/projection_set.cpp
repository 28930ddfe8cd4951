#include "store/projection_set.hpp"

#include "base/log.hpp"
#include "store/record_codec.hpp"

namespace accelopt::store {
ProjectionSet::ProjectionSet(StoreDb* db, Reader reader, uint64_t checkpoint_every)
    : db_(db), reader_(std::move(reader)), checkpoint_every_(checkpoint_every ? checkpoint_every : 1) {}

Status ProjectionSet::Add(std::shared_ptr<const Projection> projection) {
  std::string name = projection->Name();
  ACCELOPT_RETURN_IF_ERROR(ValidateProjectionName(name));
  if (entries_.count(name)) return InvalidArgument("projection " + name + " registered twice");
  auto e = std::make_unique<Entry>();
  MutexLock lock(&e->mu);  // a new entry: never contended
  e->projection = std::move(projection);
  e->state = e->projection->Initial();
  e->cf = db_->ProjectionCf(name);

  if (e->cf) {
    rocksdb::ReadOptions ro;
    std::string version, checkpoint, state;
    auto sv = db_->db()->Get(ro, e->cf, "version", &version);
    auto sc = db_->db()->Get(ro, e->cf, "checkpoint", &checkpoint);
    auto ss = db_->db()->Get(ro, e->cf, "state", &state);
    std::string why;
    if (!sv.ok() || !sc.ok() || !ss.ok()) {
      why = "no complete stored state";
    } else if (version != std::to_string(e->projection->Version())) {
      why = "stored version " + version + " differs from " + std::to_string(e->projection->Version());
    } else if (checkpoint.size() != 8) {
      why = "checkpoint is not 8 bytes";
    } else {
      auto parsed = ParseJson(state);
      if (!parsed.ok()) {
        why = "stored state is not JSON";
      } else {
        e->state = std::move(parsed).value();
        e->checkpoint = e->persisted = GetBigEndian64(checkpoint);
        e->ever_persisted = true;
      }
    }
    if (!why.empty()) {
      if (sv.ok() || sc.ok() || ss.ok()) LogWarning("projection " + name + ": " + why + "; rebuilding");
      if (!db_->read_only()) ACCELOPT_RETURN_IF_ERROR(Reset(*e));
    }
  } else if (!db_->read_only()) {
    ACCELOPT_ASSIGN_OR_RETURN(e->cf, db_->GetOrCreateProjectionCf(name));
  }
  entries_[name] = std::move(e);
  return Status::Ok();
}

Status ProjectionSet::Reset(Entry& e) {
  e.state = e.projection->Initial();
  e.checkpoint = e.persisted = 0;
  e.ever_persisted = false;
  e.error = Status::Ok();
  if (db_->read_only()) return Status::Ok();
  ACCELOPT_ASSIGN_OR_RETURN(e.cf, db_->ReplaceProjectionCf(e.projection->Name()));
  return Status::Ok();
}

Status ProjectionSet::ApplyOne(Entry& e, const EventRecord& event) {
  Status s;
  try {
    s = e.projection->Apply(e.state, event);
  } catch (const std::exception& ex) {
    s = Internal(std::string("threw: ") + ex.what());
  }
  if (!s.ok()) {
    e.error = s.WithContext("projection " + e.projection->Name() + " at global position " +
                            std::to_string(event.global_position));
    LogError(e.error.ToString());
    return e.error;
  }
  e.checkpoint = event.global_position;
  return Status::Ok();
}

Status ProjectionSet::CatchUp(Entry& e, uint64_t last_global) {
  if (!e.error.ok()) return e.error;
  if (e.checkpoint >= last_global) return Status::Ok();
  // The reader calls back on this thread, with e.mu still held.
  return reader_(e.checkpoint + 1, last_global, [&](EventRecord& ev) ACCELOPT_REQUIRES(e.mu) -> Status {
    if (ev.global_position != e.checkpoint + 1) {
      return Corruption("projection " + e.projection->Name() + ": expected global position " +
                        std::to_string(e.checkpoint + 1) + ", read " + std::to_string(ev.global_position));
    }
    return ApplyOne(e, ev);
  });
}

Status ProjectionSet::Persist(Entry& e) {
  if (db_->read_only() || !e.cf) return Status::Ok();
  if (e.ever_persisted && e.persisted == e.checkpoint) return Status::Ok();
  rocksdb::WriteBatch wb;
  wb.Put(e.cf, "version", std::to_string(e.projection->Version()));
  wb.Put(e.cf, "checkpoint", BigEndian64(e.checkpoint));
  wb.Put(e.cf, "state", Dump(e.state));
  // The log is the source of truth, so the state need not be synced itself;
  // the batch is atomic, and the next synced append persists it anyway.
  ACCELOPT_RETURN_IF_ERROR(
      FromRocks(db_->db()->Write(rocksdb::WriteOptions(), &wb), "checkpointing projection " + e.projection->Name()));
  e.persisted = e.checkpoint;
  e.ever_persisted = true;
  return Status::Ok();
}

void ProjectionSet::OnCommitted(const std::vector<EventRecord>& events, uint64_t last_global) {
  for (auto& [name, ep] : entries_) {
    if (!ep->mu.TryLock()) continue;  // busy: its next read catches it up
    FoldCommitted(*ep, events, last_global);
    ep->mu.Unlock();
  }
}

void ProjectionSet::FoldCommitted(Entry& e, const std::vector<EventRecord>& events, uint64_t last_global) {
  if (!e.error.ok()) return;
  for (const auto& ev : events) {
    if (ev.global_position <= e.checkpoint) continue;
    if (ev.global_position == e.checkpoint + 1) {
      if (!ApplyOne(e, ev).ok()) break;
    } else {
      (void)CatchUp(e, last_global);  // missed some: fold them from the log
      break;
    }
  }
  if (e.error.ok() && e.checkpoint - e.persisted >= checkpoint_every_) {
    Status s = Persist(e);
    if (!s.ok()) LogWarning(s.ToString());
  }
}

Status ProjectionSet::CatchUpAll(uint64_t last_global) {
  Status first;
  for (auto& [name, ep] : entries_) {
    MutexLock lock(&ep->mu);
    Status s = CatchUp(*ep, last_global);
    if (s.ok()) s = Persist(*ep);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

Result<ProjectionSnapshot> ProjectionSet::Read(const std::string& name, uint64_t last_global) {
  auto it = entries_.find(name);
  if (it == entries_.end()) return NotFound("no projection named " + name);
  Entry& e = *it->second;
  MutexLock lock(&e.mu);
  ACCELOPT_RETURN_IF_ERROR(CatchUp(e, last_global));
  return ProjectionSnapshot{e.state, e.checkpoint};
}

Status ProjectionSet::Rebuild(const std::string& name, uint64_t last_global) {
  auto it = entries_.find(name);
  if (it == entries_.end()) return NotFound("no projection named " + name);
  Entry& e = *it->second;
  MutexLock lock(&e.mu);
  ACCELOPT_RETURN_IF_ERROR(Reset(e));
  ACCELOPT_RETURN_IF_ERROR(CatchUp(e, last_global));
  return Persist(e);
}

Status ProjectionSet::PersistAll() {
  Status first;
  for (auto& [name, ep] : entries_) {
    MutexLock lock(&ep->mu);
    if (!ep->error.ok()) continue;
    Status s = Persist(*ep);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

}  // namespace accelopt::store
