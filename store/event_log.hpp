// EventLog: the durable, append-only event log of accelopt (see docs/store.md).
//
// Writes: Append() takes appends to one or more streams, each with an
// expected version, and commits them in one atomic RocksDB WriteBatch. All
// appends go through one writer thread that takes everything queued, checks
// expected versions against the in-memory heads, writes one sync=true batch
// for the whole group and only then acknowledges each caller. A conflict
// fails its own request and nothing of it is written; the other requests of
// the group are unaffected. After any failed write the log turns unhealthy
// and every later Append fails with kFailedPrecondition (a restart is the
// repair: reopening recovers what was durable).
//
// Reads see durable events only. Subscribers are called after each durable
// commit, from the writer thread, before the appenders are acknowledged.
//
// Thread safety: all public methods are thread-safe. Close()/the destructor
// must not race with other calls.
#pragma once

#include <rocksdb/env.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/env.hpp"
#include "base/mutex.hpp"
#include "base/status.hpp"
#include "store/event.hpp"
#include "store/event_types.hpp"
#include "store/projection.hpp"

namespace accelopt::store {

class StoreDb;
class ProjectionSet;

// Appends to one stream. `expected_version`: kAnyVersion (no check),
// kNoStream (the stream must not exist), or N >= 1 (the head must be N).
// `events` may be empty (then the append is only a version check).
// `blobs` are stored (content-addressed, deduplicated) in the same batch.
struct StreamAppend {
  std::string stream;
  int64_t expected_version = kAnyVersion;
  std::vector<NewEvent> events;
  std::vector<std::string> blobs;
};

struct StreamAppendResult {
  std::string stream;
  uint64_t first_version = 0;  // 0 when no events were appended
  uint64_t last_version = 0;   // the stream's head after the append
};

struct AppendResult {
  std::vector<StreamAppendResult> streams;  // in request order
  uint64_t first_global = 0;                // 0 when no events were appended
  uint64_t last_global = 0;
  int64_t recorded_at_us = 0;
  std::vector<std::string> blob_hashes;  // sha256 hex, in request order
};

struct StreamInfo {
  std::string stream;
  uint64_t head = 0;
};

using AppendCallback = std::function<void(Result<AppendResult>)>;
using SubscriberFn = std::function<void(const std::vector<EventRecord>&)>;

class EventLog;

// Keeps a subscriber registered; unsubscribes on destruction or Reset().
// Must not outlive the EventLog. Movable.
class Subscription {
 public:
  Subscription() = default;
  Subscription(Subscription&& o) noexcept : log_(o.log_), id_(o.id_) { o.log_ = nullptr; }
  Subscription& operator=(Subscription&& o) noexcept;
  ~Subscription() { Reset(); }
  // Blocks until a running callback of this subscriber has returned.
  // REQUIRES: not called from the subscriber's own callback.
  void Reset();

 private:
  friend class EventLog;
  Subscription(EventLog* log, uint64_t id) : log_(log), id_(id) {}
  EventLog* log_ = nullptr;
  uint64_t id_ = 0;
};

class EventLog {
 public:
  struct Options {
    // Create the directory and an empty store when missing. Default false.
    bool create_if_missing = false;
    // Open for inspection only: nothing is written, Append fails. Default false.
    bool read_only = false;
    // Known event types; not owned, must outlive the log. nullptr (default)
    // = raw mode: any type may be appended and is read back as stored,
    // without upcasting (the offline tool). Projections require a registry.
    const EventTypeRegistry* registry = nullptr;
    // Projections kept by this log. Default none.
    std::vector<std::shared_ptr<const Projection>> projections;
    // Clock for recorded_at. Not owned. Default nullptr: Env::Default().
    Env* env = nullptr;
    // RocksDB file system / env (tests inject faults). Not owned. Default real.
    rocksdb::Env* rocksdb_env = nullptr;
    // A projection's state is written with its checkpoint at least every this
    // many events (and at Close). Default 1000.
    uint64_t projection_checkpoint_every = 1000;
    // Most requests the writer folds into one batch. Default 4096.
    size_t max_group_requests = 4096;
    // Check at open that meta agrees with the log's last position. Default
    // true; the offline tool turns it off and reports instead.
    bool check_consistency = true;
  };

  // Opens (or creates) the store under `dir`. Errors: see StoreDb::Open
  // (kNotFound, kFailedPrecondition for a newer schema, kPermissionDenied,
  // kUnavailable when locked, kCorruption), kInvalidArgument for bad options.
  static Result<std::unique_ptr<EventLog>> Open(const std::string& dir, const Options& options);

  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  // Finishes queued appends, checkpoints projections, closes the database.
  // Idempotent. Later calls fail with kFailedPrecondition.
  void Close();

  // ---- writes
  // Blocks until the batch is durable. Errors: kInvalidArgument (bad stream
  // id/type/empty request/duplicate stream), kConflict (an expected version
  // did not match; nothing written), kFailedPrecondition (unhealthy, closed or
  // read-only), kIOError (the write failed; the log is now unhealthy).
  // REQUIRES: not called from a subscriber or AppendAsync callback.
  Result<AppendResult> Append(std::vector<StreamAppend> appends);
  // Same, without blocking: `done` runs on the writer thread once the batch
  // is durable (or failed), or on the calling thread for errors found before
  // queueing. `done` must be quick and must not call Append.
  void AppendAsync(std::vector<StreamAppend> appends, AppendCallback done);
  // Stores `bytes` durably; returns its sha256 hex. Deduplicated.
  Result<std::string> PutBlob(std::string bytes);

  // ---- reads (durable events only; upcast when a registry is set)
  // Up to `max` events of `stream` with version >= from_version (>= 1).
  // An unknown stream gives an empty vector.
  Result<std::vector<EventRecord>> ReadStream(const std::string& stream, uint64_t from_version = 1,
                                              size_t max = SIZE_MAX) const;
  // Up to `max` events with global position >= from_global (>= 1).
  Result<std::vector<EventRecord>> ReadAll(uint64_t from_global = 1, size_t max = SIZE_MAX) const;
  // The stream's last version; 0 when it does not exist.
  uint64_t Head(const std::string& stream) const;
  uint64_t LastGlobalPosition() const { return last_global_.load(); }
  // Streams whose id starts with `prefix`, sorted by id.
  std::vector<StreamInfo> ListStreams(const std::string& prefix = "") const;
  // kNotFound when absent, kCorruption when the bytes do not match the hash.
  Result<std::string> GetBlob(const std::string& sha256_hex) const;
  bool HasBlob(const std::string& sha256_hex) const;

  // ---- subscriptions
  // Waits until LastGlobalPosition() >= position. kTimeout after `timeout`,
  // kFailedPrecondition when the log closes first.
  Status WaitForGlobal(uint64_t position, std::chrono::milliseconds timeout) const;
  // `fn` gets each durable commit's events in global order, on the writer
  // thread, before the appenders are acknowledged (so once Append returns,
  // every subscriber has seen its events). It may also get events committed
  // just before Subscribe returned: filter by global_position. It must be
  // quick, must not call Append (AppendAsync is fine) nor reset its own
  // Subscription; an exception it throws is logged and ignored.
  [[nodiscard]] Subscription Subscribe(SubscriberFn fn);

  // ---- projections
  // The projection's state, caught up to LastGlobalPosition(). kNotFound for
  // an unregistered name; the fold's error if it failed.
  Result<ProjectionSnapshot> ReadProjection(const std::string& name);
  // Drops the projection's column family and replays the whole log into it.
  Status RebuildProjection(const std::string& name);
  // Writes every projection's state and checkpoint now.
  Status CheckpointProjections();

  // ---- health
  bool Healthy() const { return healthy_.load(); }
  // Ok, or the error that made the log unhealthy.
  Status HealthStatus() const;

  const std::string& dir() const { return dir_; }
  bool read_only() const { return read_only_; }
  const EventTypeRegistry* registry() const { return registry_; }
  // The underlying database, for the offline tool and tests. Not owned.
  StoreDb* store_db() const { return db_.get(); }

 private:
  // One queued Append: validated, data encoded, blob hashes computed.
  struct Request {
    std::vector<StreamAppend> appends;
    std::vector<std::vector<std::string>> data_bin;  // [append][event], json_codec.hpp
    std::vector<std::string> blobs;                  // contents, in order
    std::vector<std::string> blob_keys;              // raw sha256 of each
    std::vector<bool> blob_present;                  // already stored: skip
    AppendCallback done;
  };
  friend class Subscription;

  EventLog() = default;
  Status LoadState(const Options& options);
  void Enqueue(Request request);
  void WriterLoop();
  void ProcessGroup(std::deque<Request>& group);
  void Fail(const Status& s);
  void Unsubscribe(uint64_t id);
  Status DecodeInto(std::string_view bytes, EventRecord* e) const;
  // Calls `fn` for each committed event from `from` up to `limit` (both
  // inclusive), at most `max` of them, in global order, decoded and upcast.
  // The record passed to `fn` is reused for the next event.
  Status Scan(uint64_t from, uint64_t limit, size_t max, const std::function<Status(EventRecord&)>& fn) const;

  std::string dir_;
  bool read_only_ = false;
  const EventTypeRegistry* registry_ = nullptr;
  Env* env_ = nullptr;
  size_t max_group_requests_ = 4096;
  std::unique_ptr<StoreDb> db_;
  std::unique_ptr<ProjectionSet> projections_;

  // Committed state, updated by the writer after each durable write; only
  // the writer thread changes heads_.
  mutable Mutex heads_mu_;
  std::map<std::string, uint64_t> heads_ ACCELOPT_GUARDED_BY(heads_mu_);
  std::atomic<uint64_t> last_global_{0};
  mutable std::condition_variable global_cv_;  // with heads_mu_
  int64_t last_recorded_at_ = 0;               // writer thread only

  std::atomic<bool> healthy_{true};
  mutable Mutex health_mu_;
  Status health_status_ ACCELOPT_GUARDED_BY(health_mu_);

  Mutex queue_mu_;
  std::condition_variable queue_cv_;  // with queue_mu_
  std::deque<Request> queue_ ACCELOPT_GUARDED_BY(queue_mu_);
  bool stopping_ ACCELOPT_GUARDED_BY(queue_mu_) = false;
  std::atomic<bool> closed_{false};
  std::thread writer_;

  Mutex subs_mu_;
  std::map<uint64_t, SubscriberFn> subscribers_ ACCELOPT_GUARDED_BY(subs_mu_);
  uint64_t next_sub_id_ ACCELOPT_GUARDED_BY(subs_mu_) = 1;
  std::atomic<bool> has_subscribers_{false};
};

}  // namespace accelopt::store
