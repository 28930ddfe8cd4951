// EventLog: opening, closing and the group-commit writer. Reads are in
// event_log_read.cpp.
#include "store/event_log.hpp"

#include <future>
#include <set>

#include "base/log.hpp"
#include "base/sha256.hpp"
#include "store/json_codec.hpp"
#include "store/projection_set.hpp"
#include "store/record_codec.hpp"
#include "store/store_db.hpp"

namespace accelopt::store {

Result<std::unique_ptr<EventLog>> EventLog::Open(const std::string& dir, const Options& options) {
  if (!options.projections.empty() && !options.registry) {
    return InvalidArgument("projections need an event type registry");
  }
  StoreDbOptions so;
  so.create_if_missing = options.create_if_missing;
  so.read_only = options.read_only;
  so.rocksdb_env = options.rocksdb_env;
  ACCELOPT_ASSIGN_OR_RETURN(auto db, StoreDb::Open(dir, so));

  std::unique_ptr<EventLog> log(new EventLog);
  log->dir_ = dir;
  log->read_only_ = options.read_only;
  log->registry_ = options.registry;
  log->env_ = options.env ? options.env : Env::Default();
  log->max_group_requests_ = std::max<size_t>(1, options.max_group_requests);
  log->db_ = std::move(db);
  ACCELOPT_RETURN_IF_ERROR(log->LoadState(options));

  EventLog* raw = log.get();
  log->projections_ = std::make_unique<ProjectionSet>(
      log->db_.get(),
      [raw](uint64_t from, uint64_t to, const std::function<Status(EventRecord&)>& fn) {
        return raw->Scan(from, to, SIZE_MAX, fn);
      },
      options.projection_checkpoint_every);
  for (const auto& p : options.projections) {
    if (!p) return InvalidArgument("null projection");
    ACCELOPT_RETURN_IF_ERROR(log->projections_->Add(p));
  }
  Status caught_up = log->projections_->CatchUpAll(log->LastGlobalPosition());
  if (!caught_up.ok()) LogError("catching up projections: " + caught_up.ToString());

  if (!log->read_only_) log->writer_ = std::thread([raw] { raw->WriterLoop(); });
  return log;
}

Status EventLog::LoadState(const Options& options) {
  rocksdb::ReadOptions ro;
  std::unique_ptr<rocksdb::Iterator> it(db_->db()->NewIterator(ro, db_->meta()));
  for (it->Seek(kMetaHeadPrefix); it->Valid() && it->key().starts_with(kMetaHeadPrefix); it->Next()) {
    if (it->value().size() != 8) return Corruption("meta head entry is not 8 bytes");
    std::string stream = it->key().ToString().substr(strlen(kMetaHeadPrefix));
    MutexLock lock(&heads_mu_);  // before the writer starts: never contended
    heads_[stream] = GetBigEndian64(it->value().ToStringView());
  }
  ACCELOPT_RETURN_IF_ERROR(FromRocks(it->status(), "reading heads"));
  ACCELOPT_ASSIGN_OR_RETURN(uint64_t last, db_->GetMetaU64(kMetaLastGlobal));
  last_global_ = last;

  if (options.check_consistency) {
    // Batches are atomic, so meta and the log agree unless something outside
    // the store changed the files.
    std::unique_ptr<rocksdb::Iterator> g(db_->db()->NewIterator(ro, db_->global()));
    g->SeekToLast();
    ACCELOPT_RETURN_IF_ERROR(FromRocks(g->status(), "reading the log"));
    uint64_t actual = 0;
    if (g->Valid()) {
      if (g->key().size() != 8) return Corruption("malformed global key in " + dir_);
      actual = GetBigEndian64(g->key().ToStringView());
    }
    if (actual != last) {
      return Corruption(dir_ + ": meta says the log ends at " + std::to_string(last) + " but it ends at " +
                        std::to_string(actual) + "; run `accelopt-store verify`");
    }
    if (last > 0) {
      std::string rec;
      ACCELOPT_RETURN_IF_ERROR(
          FromRocks(db_->db()->Get(ro, db_->global(), BigEndian64(last), &rec), "reading last record"));
      auto e = DecodeRecord(rec);
      if (!e.ok()) return e.status().WithContext("last record of " + dir_);
      last_recorded_at_ = e->recorded_at_us;
    }
  }
  return Status::Ok();
}

EventLog::~EventLog() { Close(); }

void EventLog::Close() {
  if (closed_.exchange(true)) return;
  {
    MutexLock lock(&queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (writer_.joinable()) writer_.join();
  {
    MutexLock lock(&heads_mu_);  // a waiter between its check and its wait sees closed_
  }
  global_cv_.notify_all();
  if (projections_ && Healthy()) {
    Status s = projections_->PersistAll();
    if (!s.ok()) LogWarning("checkpointing projections at close: " + s.ToString());
  }
  projections_.reset();
  db_.reset();
}

Status EventLog::HealthStatus() const {
  MutexLock lock(&health_mu_);
  return health_status_;
}

void EventLog::Fail(const Status& s) {
  {
    MutexLock lock(&health_mu_);
    if (health_status_.ok()) health_status_ = s;
  }
  healthy_ = false;
  LogError("event log " + dir_ + " is unhealthy, refusing writes: " + s.ToString());
}

Result<AppendResult> EventLog::Append(std::vector<StreamAppend> appends) {
  std::promise<Result<AppendResult>> promise;
  auto future = promise.get_future();
  AppendAsync(std::move(appends), [&promise](Result<AppendResult> r) { promise.set_value(std::move(r)); });
  return future.get();
}

Result<std::string> EventLog::PutBlob(std::string bytes) {
  std::promise<Result<AppendResult>> promise;
  auto future = promise.get_future();
  Request r;
  r.blob_keys.push_back(Sha256Raw(bytes));
  r.blobs.push_back(std::move(bytes));
  r.done = [&promise](Result<AppendResult> res) { promise.set_value(std::move(res)); };
  Enqueue(std::move(r));
  ACCELOPT_ASSIGN_OR_RETURN(auto res, future.get());
  return res.blob_hashes.at(0);
}

void EventLog::AppendAsync(std::vector<StreamAppend> appends, AppendCallback done) {
  Request r;
  if (appends.empty()) return done(InvalidArgument("append with no streams"));
  std::set<std::string> seen;
  r.data_bin.resize(appends.size());
  for (size_t i = 0; i < appends.size(); ++i) {
    StreamAppend& sa = appends[i];
    Status s = ValidateStreamId(sa.stream);
    if (!s.ok()) return done(s);
    if (!seen.insert(sa.stream).second) {
      return done(InvalidArgument("stream " + sa.stream + " appears twice in one append"));
    }
    if (sa.expected_version < kAnyVersion) {
      return done(InvalidArgument("expected version " + std::to_string(sa.expected_version) + " for stream " +
                                  sa.stream + " is invalid"));
    }
    for (NewEvent& ev : sa.events) {
      s = ValidateTypeName(ev.type);
      if (!s.ok()) return done(s.WithContext("stream " + sa.stream));
      if (registry_) {
        auto v = registry_->CheckForAppend(ev.type, ev.schema_version);
        if (!v.ok()) return done(v.status().WithContext("stream " + sa.stream));
        ev.schema_version = *v;
      } else if (ev.schema_version == 0) {
        ev.schema_version = 1;
      } else if (ev.schema_version < 0) {
        return done(InvalidArgument("negative schema version for " + ev.type));
      }
      std::string bin;
      s = EncodeJsonBinary(ev.data, &bin);
      if (!s.ok()) return done(s.WithContext("stream " + sa.stream + " event " + ev.type));
      r.data_bin[i].push_back(std::move(bin));
    }
    for (std::string& b : sa.blobs) {
      r.blob_keys.push_back(Sha256Raw(b));
      r.blobs.push_back(std::move(b));
    }
    sa.blobs.clear();
  }
  r.appends = std::move(appends);
  r.done = std::move(done);
  Enqueue(std::move(r));
}

void EventLog::Enqueue(Request r) {
  if (closed_) return r.done(FailedPrecondition("event log " + dir_ + " is closed"));
  if (read_only_) return r.done(FailedPrecondition("event log " + dir_ + " is open read-only"));
  if (!Healthy()) return r.done(FailedPrecondition("event log is unhealthy: " + HealthStatus().ToString()));
  // Blobs already stored are not written again (checked here, off the writer thread).
  r.blob_present.assign(r.blobs.size(), false);
  for (size_t i = 0; i < r.blobs.size(); ++i) {
    rocksdb::PinnableSlice v;
    r.blob_present[i] = db_->db()->Get(rocksdb::ReadOptions(), db_->blobs(), r.blob_keys[i], &v).ok();
  }
  {
    MutexLock lock(&queue_mu_);
    if (!stopping_) {
      queue_.push_back(std::move(r));
      queue_cv_.notify_one();
      return;
    }
  }
  r.done(FailedPrecondition("event log " + dir_ + " is closed"));
}

void EventLog::WriterLoop() {
  std::deque<Request> group;
  for (;;) {
    {
      MutexLock lock(&queue_mu_);
      while (!stopping_ && queue_.empty()) lock.Wait(&queue_cv_);
      if (queue_.empty()) return;  // stopping and drained
      while (!queue_.empty() && group.size() < max_group_requests_) {
        group.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    ProcessGroup(group);
    group.clear();
  }
}

void EventLog::ProcessGroup(std::deque<Request>& group) {
  if (!Healthy()) {
    Status s = FailedPrecondition("event log is unhealthy: " + HealthStatus().ToString());
    for (auto& r : group) r.done(s);
    return;
  }
  std::vector<Result<AppendResult>> results;
  results.reserve(group.size());
  std::vector<EventRecord> records;
  std::map<std::string, uint64_t> new_heads;  // heads after this group
  std::set<std::string> new_blobs;
  rocksdb::WriteBatch wb;
  uint64_t next_global = last_global_.load() + 1;
  int64_t now = std::max(env_->NowMicros(), last_recorded_at_);
  std::string key, value;

  auto head_of = [&](const std::string& s) -> uint64_t {
    if (auto it = new_heads.find(s); it != new_heads.end()) return it->second;
    return Head(s);
  };
  for (auto& r : group) {
    Status conflict;
    for (const auto& sa : r.appends) {
      uint64_t head = head_of(sa.stream);
      if (sa.expected_version != kAnyVersion && static_cast<uint64_t>(sa.expected_version) != head) {
        conflict = Conflict("stream " + sa.stream + " is at version " + std::to_string(head) + ", expected " +
                            std::to_string(sa.expected_version));
        break;
      }
    }
    if (!conflict.ok()) {
      results.emplace_back(conflict);
      continue;
    }
    AppendResult res;
    res.recorded_at_us = now;
    for (size_t i = 0; i < r.appends.size(); ++i) {
      StreamAppend& sa = r.appends[i];
      uint64_t head = head_of(sa.stream);
      StreamAppendResult sr{sa.stream, sa.events.empty() ? 0 : head + 1, head + sa.events.size()};
      for (size_t k = 0; k < sa.events.size(); ++k) {
        NewEvent& ev = sa.events[k];
        uint64_t version = ++head;
        uint64_t global = next_global++;
        if (res.first_global == 0) res.first_global = global;
        res.last_global = global;
        RecordFields f;
        f.type = ev.type;
        f.schema_version = ev.schema_version;
        f.stream = sa.stream;
        f.version = version;
        f.global_position = global;
        f.recorded_at_us = now;
        f.data = r.data_bin[i][k];
        f.causation_id = ev.causation_id ? &*ev.causation_id : nullptr;
        f.correlation_id = ev.correlation_id ? &*ev.correlation_id : nullptr;
        value.clear();
        EncodeRecord(f, &value);
        key = BigEndian64(global);
        wb.Put(db_->global(), key, value);
        wb.Put(db_->events(), StreamKey(sa.stream, version), key);
        // Always kept: a subscriber that registers while this group is in
        // flight must still see it.
        records.push_back(EventRecord{std::move(ev.type), ev.schema_version, sa.stream, version, global, now,
                                      std::move(ev.data), std::move(ev.causation_id), std::move(ev.correlation_id)});
      }
      if (!sa.events.empty()) new_heads[sa.stream] = head;
      res.streams.push_back(std::move(sr));
    }
    for (size_t b = 0; b < r.blobs.size(); ++b) {
      res.blob_hashes.push_back(ToHex(r.blob_keys[b]));
      if (!r.blob_present[b] && new_blobs.insert(r.blob_keys[b]).second) {
        wb.Put(db_->blobs(), r.blob_keys[b], r.blobs[b]);
      }
    }
    results.emplace_back(std::move(res));
  }

  uint64_t last = next_global - 1;
  if (!new_heads.empty()) {
    wb.Put(db_->meta(), kMetaLastGlobal, BigEndian64(last));
    for (const auto& [s, h] : new_heads) wb.Put(db_->meta(), kMetaHeadPrefix + s, BigEndian64(h));
  }
  if (wb.Count() > 0) {
    rocksdb::WriteOptions wo;
    wo.sync = true;
    rocksdb::Status ws = db_->db()->Write(wo, &wb);
    if (!ws.ok()) {
      Status err = FromRocks(ws, "durable write of " + std::to_string(wb.Count()) + " entries failed");
      Fail(err);
      Status reply = IOError(err.message() + "; the outcome of this append is unknown and the log refuses writes");
      for (size_t i = 0; i < group.size(); ++i)
        group[i].done(results[i].ok() ? Result<AppendResult>(reply) : results[i]);
      return;
    }
  }
  {
    MutexLock lock(&heads_mu_);
    for (const auto& [s, h] : new_heads) heads_[s] = h;
    last_global_ = last;
  }
  last_recorded_at_ = now;
  global_cv_.notify_all();
  // Subscribers first, so that once an Append returns its events have been
  // delivered; then the appenders; then the projections (reads catch up).
  if (!records.empty() && has_subscribers_.load()) {
    MutexLock lock(&subs_mu_);
    for (auto& [id, fn] : subscribers_) {
      try {
        fn(records);
      } catch (const std::exception& ex) {
        LogError(std::string("event log subscriber threw: ") + ex.what());
      }
    }
  }
  for (size_t i = 0; i < group.size(); ++i) group[i].done(std::move(results[i]));
  if (records.empty()) return;
  if (projections_) projections_->OnCommitted(records, last);
}

}  // namespace accelopt::store
