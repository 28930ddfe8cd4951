// EventLog: reads, blobs, subscriptions and projections.
#include "store/event_log.hpp"

#include "base/sha256.hpp"
#include "store/projection_set.hpp"
#include "store/record_codec.hpp"
#include "store/store_db.hpp"

namespace accelopt::store {
namespace {

std::string Where(uint64_t global) { return "global position " + std::to_string(global); }

bool IsHex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string FromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    auto nib = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    out.push_back(static_cast<char>(nib(hex[i]) * 16 + nib(hex[i + 1])));
  }
  return out;
}

}  // namespace

Status EventLog::DecodeInto(std::string_view bytes, EventRecord* e) const {
  ACCELOPT_RETURN_IF_ERROR(DecodeRecordInto(bytes, e));
  if (registry_) ACCELOPT_RETURN_IF_ERROR(registry_->Upcast(e));
  return Status::Ok();
}

Result<std::vector<EventRecord>> EventLog::ReadAll(uint64_t from_global, size_t max) const {
  if (closed_) return FailedPrecondition("event log is closed");
  std::vector<EventRecord> out;
  uint64_t limit = LastGlobalPosition();
  if (from_global <= limit && max > 0) {
    out.reserve(static_cast<size_t>(std::min<uint64_t>({limit - std::max<uint64_t>(from_global, 1) + 1, max, 65536})));
  }
  ACCELOPT_RETURN_IF_ERROR(Scan(from_global, limit, max, [&](EventRecord& e) {
    out.push_back(std::move(e));
    return Status::Ok();
  }));
  return out;
}

Status EventLog::Scan(uint64_t from, uint64_t limit, size_t max, const std::function<Status(EventRecord&)>& fn) const {
  if (from == 0) from = 1;
  if (from > limit || max == 0) return Status::Ok();
  rocksdb::ReadOptions ro;
  ro.readahead_size = 1 << 20;
  std::unique_ptr<rocksdb::Iterator> it(db_->db()->NewIterator(ro, db_->global()));
  uint64_t expect = from;
  size_t n = 0;
  EventRecord e;
  for (it->Seek(BigEndian64(from)); it->Valid() && n < max && expect <= limit; it->Next(), ++expect, ++n) {
    rocksdb::Slice k = it->key();
    if (k.size() != 8) return Corruption("malformed key in the global order near " + Where(expect));
    uint64_t g = GetBigEndian64(k.ToStringView());
    if (g != expect)
      return Corruption("the log has no event at " + Where(expect) + " (next is " + std::to_string(g) + ")");
    Status s = DecodeInto(it->value().ToStringView(), &e);
    if (!s.ok()) return s.WithContext(Where(g));
    if (e.global_position != g) {
      return Corruption("record stored at " + Where(g) + " says it is at " + std::to_string(e.global_position));
    }
    ACCELOPT_RETURN_IF_ERROR(fn(e));
  }
  ACCELOPT_RETURN_IF_ERROR(FromRocks(it->status(), "reading the log"));
  if (n < max && expect <= limit) {
    return Corruption("the log ends before " + Where(expect) + " (meta says " + std::to_string(limit) + ")");
  }
  return Status::Ok();
}

Result<std::vector<EventRecord>> EventLog::ReadStream(const std::string& stream, uint64_t from_version,
                                                      size_t max) const {
  if (closed_) return FailedPrecondition("event log is closed");
  ACCELOPT_RETURN_IF_ERROR(ValidateStreamId(stream));
  std::vector<EventRecord> out;
  uint64_t head = Head(stream);
  if (from_version == 0) from_version = 1;
  if (from_version > head || max == 0) return out;
  size_t n = static_cast<size_t>(std::min<uint64_t>(head - from_version + 1, max));

  // Index entries -> global keys.
  std::vector<std::string> gkeys;
  gkeys.reserve(n);
  std::string prefix = StreamKeyPrefix(stream);
  std::unique_ptr<rocksdb::Iterator> it(db_->db()->NewIterator(rocksdb::ReadOptions(), db_->events()));
  uint64_t expect = from_version;
  for (it->Seek(StreamKey(stream, from_version)); it->Valid() && gkeys.size() < n; it->Next(), ++expect) {
    rocksdb::Slice k = it->key();
    if (!k.starts_with(prefix) || k.size() != prefix.size() + 8) break;
    uint64_t v = GetBigEndian64(k.ToStringView().substr(prefix.size()));
    if (v != expect) return Corruption("stream " + stream + " has no version " + std::to_string(expect));
    if (it->value().size() != 8)
      return Corruption("malformed index entry for " + stream + " version " + std::to_string(v));
    gkeys.push_back(it->value().ToString());
  }
  ACCELOPT_RETURN_IF_ERROR(FromRocks(it->status(), "reading stream " + stream));
  if (gkeys.size() < n) {
    return Corruption("stream " + stream + " ends at version " + std::to_string(expect - 1) + " but its head is " +
                      std::to_string(head));
  }
  // Records, batched.
  std::vector<rocksdb::Slice> slices(gkeys.begin(), gkeys.end());
  std::vector<rocksdb::PinnableSlice> values(n);
  std::vector<rocksdb::Status> statuses(n);
  db_->db()->MultiGet(rocksdb::ReadOptions(), db_->global(), n, slices.data(), values.data(), statuses.data());
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t g = GetBigEndian64(gkeys[i]);
    uint64_t v = from_version + i;
    if (statuses[i].IsNotFound()) {
      return Corruption("stream " + stream + " version " + std::to_string(v) + " points to missing " + Where(g));
    }
    ACCELOPT_RETURN_IF_ERROR(FromRocks(statuses[i], "reading " + Where(g)));
    EventRecord e;
    Status ds = DecodeInto(values[i].ToStringView(), &e);
    if (!ds.ok()) return ds.WithContext(Where(g));
    if (e.stream != stream || e.version != v || e.global_position != g) {
      return Corruption("index of " + stream + " version " + std::to_string(v) + " points to " + Where(g) +
                        ", which holds " + e.stream + " version " + std::to_string(e.version));
    }
    out.push_back(std::move(e));
  }
  return out;
}

uint64_t EventLog::Head(const std::string& stream) const {
  MutexLock lock(&heads_mu_);
  auto it = heads_.find(stream);
  return it == heads_.end() ? 0 : it->second;
}

std::vector<StreamInfo> EventLog::ListStreams(const std::string& prefix) const {
  MutexLock lock(&heads_mu_);
  std::vector<StreamInfo> out;
  for (auto it = heads_.lower_bound(prefix); it != heads_.end() && it->first.starts_with(prefix); ++it) {
    out.push_back({it->first, it->second});
  }
  return out;
}

Result<std::string> EventLog::GetBlob(const std::string& hex) const {
  if (closed_) return FailedPrecondition("event log is closed");
  if (!IsHex64(hex)) return InvalidArgument("blob id must be 64 lower-case hex digits");
  std::string value;
  auto s = db_->db()->Get(rocksdb::ReadOptions(), db_->blobs(), FromHex(hex), &value);
  if (s.IsNotFound()) return NotFound("no blob " + hex);
  ACCELOPT_RETURN_IF_ERROR(FromRocks(s, "reading blob " + hex));
  if (Sha256Hex(value) != hex) return Corruption("blob " + hex + " does not match its hash");
  return value;
}

bool EventLog::HasBlob(const std::string& hex) const {
  if (closed_ || !IsHex64(hex)) return false;
  rocksdb::PinnableSlice v;
  return db_->db()->Get(rocksdb::ReadOptions(), db_->blobs(), FromHex(hex), &v).ok();
}

Status EventLog::WaitForGlobal(uint64_t position, std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  {
    MutexLock lock(&heads_mu_);
    while (last_global_.load() < position && !closed_.load()) {
      if (!lock.WaitUntil(&global_cv_, deadline)) break;
    }
  }
  if (last_global_.load() >= position) return Status::Ok();
  if (closed_) return FailedPrecondition("event log closed while waiting");
  return Timeout("global position " + std::to_string(position) + " not reached within " +
                 std::to_string(timeout.count()) + " ms (at " + std::to_string(last_global_.load()) + ")");
}

Subscription EventLog::Subscribe(SubscriberFn fn) {
  MutexLock lock(&subs_mu_);
  uint64_t id = next_sub_id_++;
  subscribers_[id] = std::move(fn);
  has_subscribers_ = true;
  return Subscription(this, id);
}

void EventLog::Unsubscribe(uint64_t id) {
  MutexLock lock(&subs_mu_);
  subscribers_.erase(id);
  has_subscribers_ = !subscribers_.empty();
}

Subscription& Subscription::operator=(Subscription&& o) noexcept {
  if (this != &o) {
    Reset();
    log_ = o.log_;
    id_ = o.id_;
    o.log_ = nullptr;
  }
  return *this;
}

void Subscription::Reset() {
  if (log_) log_->Unsubscribe(id_);
  log_ = nullptr;
}

Result<ProjectionSnapshot> EventLog::ReadProjection(const std::string& name) {
  if (closed_) return FailedPrecondition("event log is closed");
  return projections_->Read(name, LastGlobalPosition());
}

Status EventLog::RebuildProjection(const std::string& name) {
  if (closed_) return FailedPrecondition("event log is closed");
  if (read_only_) return FailedPrecondition("event log " + dir_ + " is open read-only");
  return projections_->Rebuild(name, LastGlobalPosition());
}

Status EventLog::CheckpointProjections() {
  if (closed_) return FailedPrecondition("event log is closed");
  return projections_->PersistAll();
}

}  // namespace accelopt::store
