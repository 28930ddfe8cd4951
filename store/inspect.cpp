#include "store/inspect.hpp"

#include <filesystem>
#include <memory>
#include <unordered_map>

#include "base/sha256.hpp"
#include "store/record_codec.hpp"

namespace accelopt::store {
namespace {

std::unique_ptr<rocksdb::Iterator> Iter(const StoreDb& db, rocksdb::ColumnFamilyHandle* cf) {
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  ro.readahead_size = 1 << 20;
  return std::unique_ptr<rocksdb::Iterator>(db.db()->NewIterator(ro, cf));
}

class Problems {
 public:
  Problems(VerifyReport* r, size_t max) : r_(r), max_(max) {}
  void Add(std::string p) {
    if (r_->problems.size() < max_)
      r_->problems.push_back(std::move(p));
    else
      ++r_->more_problems;
  }

 private:
  VerifyReport* r_;
  size_t max_;
};

}  // namespace

Status DumpEvents(const StoreDb& db, const DumpOptions& options, std::ostream& out) {
  auto it = Iter(db, db.global());
  for (it->Seek(BigEndian64(std::max<uint64_t>(1, options.from_global))); it->Valid(); it->Next()) {
    std::string where = it->key().size() == 8
                            ? "global position " + std::to_string(GetBigEndian64(it->key().ToStringView()))
                            : "a malformed key";
    auto e = DecodeRecord(it->value().ToStringView());
    if (!e.ok()) return e.status().WithContext(where);
    if (!options.stream.empty() && e->stream != options.stream) continue;
    out << Dump(ToJson(*e)) << '\n';
  }
  out.flush();
  return FromRocks(it->status(), "reading the log");
}

VerifyReport Verify(const StoreDb& db, const EventTypeRegistry* registry, size_t max_problems) {
  VerifyReport r;
  Problems problems(&r, max_problems);

  // 1. The global order: contiguous, decodable, versions contiguous per stream.
  std::unordered_map<std::string, uint32_t> stream_ids;
  std::vector<std::string> stream_names;
  std::vector<uint64_t> stream_heads;
  std::vector<std::pair<uint32_t, uint64_t>> at;  // global-1 -> (stream id, version)
  at.reserve(1024);
  auto it = Iter(db, db.global());
  uint64_t expect = 1;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (it->key().size() != 8) {
      problems.Add("malformed key of " + std::to_string(it->key().size()) + " bytes in the global order");
      continue;
    }
    uint64_t g = GetBigEndian64(it->key().ToStringView());
    if (g != expect) {
      problems.Add("global positions jump from " + std::to_string(expect - 1) + " to " + std::to_string(g));
      if (g > at.size() && g - 1 - at.size() < (uint64_t{1} << 24)) at.resize(g - 1, {UINT32_MAX, 0});
    }
    expect = g + 1;
    ++r.events;
    std::string where = "global position " + std::to_string(g);
    auto e = DecodeRecord(it->value().ToStringView());
    if (!e.ok()) {
      problems.Add(where + ": " + e.status().message());
      at.emplace_back(UINT32_MAX, 0);
      continue;
    }
    if (e->global_position != g) problems.Add(where + ": record says position " + std::to_string(e->global_position));
    if (Status s = ValidateStreamId(e->stream); !s.ok()) problems.Add(where + ": " + s.message());
    if (registry) {
      if (!registry->Knows(e->type)) {
        ++r.unknown_types[e->type];
      } else if (Status s = registry->Upcast(&*e); !s.ok()) {
        problems.Add(where + ": " + s.message());
      }
    }
    auto [sit, inserted] = stream_ids.emplace(e->stream, static_cast<uint32_t>(stream_names.size()));
    if (inserted) {
      stream_names.push_back(e->stream);
      stream_heads.push_back(0);
    }
    uint64_t& head = stream_heads[sit->second];
    if (e->version != head + 1) {
      problems.Add(where + ": stream " + e->stream + " goes from version " + std::to_string(head) + " to " +
                   std::to_string(e->version));
    }
    head = e->version;
    at.emplace_back(sit->second, e->version);
  }
  if (!it->status().ok()) problems.Add("reading the global order: " + it->status().ToString());
  for (const auto& [type, n] : r.unknown_types) {
    problems.Add("unknown event type '" + type + "' (" + std::to_string(n) + " events)");
  }
  r.streams = stream_names.size();
  uint64_t last = expect - 1;

  // 2. The stream index maps exactly the records.
  uint64_t indexed = 0;
  it = Iter(db, db.events());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string stream;
    uint64_t version = 0;
    if (Status s = ParseStreamKey(it->key().ToStringView(), &stream, &version); !s.ok() || it->value().size() != 8) {
      problems.Add("malformed stream index entry");
      continue;
    }
    ++indexed;
    uint64_t g = GetBigEndian64(it->value().ToStringView());
    auto sid = stream_ids.find(stream);
    if (g == 0 || g > at.size() || sid == stream_ids.end() || at[g - 1] != std::make_pair(sid->second, version)) {
      problems.Add("index entry " + stream + " version " + std::to_string(version) + " -> global position " +
                   std::to_string(g) + " does not match the record there");
    }
  }
  if (!it->status().ok()) problems.Add("reading the stream index: " + it->status().ToString());
  if (indexed != r.events) {
    problems.Add("the stream index has " + std::to_string(indexed) + " entries for " + std::to_string(r.events) +
                 " events");
  }

  // 3. Meta agrees.
  auto meta_last = db.GetMetaU64(kMetaLastGlobal);
  if (!meta_last.ok())
    problems.Add(meta_last.status().ToString());
  else if (*meta_last != last) {
    problems.Add("meta says the log ends at " + std::to_string(*meta_last) + ", it ends at " + std::to_string(last));
  }
  std::vector<bool> has_head(stream_names.size(), false);
  it = Iter(db, db.meta());
  std::string hp = kMetaHeadPrefix;
  for (it->Seek(hp); it->Valid() && it->key().starts_with(hp); it->Next()) {
    std::string stream = it->key().ToString().substr(hp.size());
    auto sid = stream_ids.find(stream);
    if (it->value().size() != 8) {
      problems.Add("malformed head of " + stream);
    } else if (sid == stream_ids.end()) {
      problems.Add("meta has a head for stream " + stream + ", which has no events");
    } else {
      has_head[sid->second] = true;
      uint64_t h = GetBigEndian64(it->value().ToStringView());
      if (h != stream_heads[sid->second]) {
        problems.Add("meta head of " + stream + " is " + std::to_string(h) + ", its last event is version " +
                     std::to_string(stream_heads[sid->second]));
      }
    }
  }
  for (size_t i = 0; i < has_head.size(); ++i) {
    if (!has_head[i]) problems.Add("meta has no head for stream " + stream_names[i]);
  }

  // 4. Blobs match their hashes.
  it = Iter(db, db.blobs());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++r.blobs;
    if (it->key().size() != 32 || Sha256Raw(it->value().ToStringView()) != it->key().ToStringView()) {
      problems.Add("blob " + ToHex(it->key().ToStringView()) + " does not match its hash");
    }
  }

  // 5. Projection checkpoints lie within the log.
  for (const auto& name : db.ProjectionNames()) {
    std::string cp;
    auto s = db.db()->Get(rocksdb::ReadOptions(), db.ProjectionCf(name), "checkpoint", &cp);
    if (s.ok() && (cp.size() != 8 || GetBigEndian64(cp) > last)) {
      problems.Add("projection " + name + " has a checkpoint beyond the end of the log");
    }
  }
  return r;
}

Result<StoreStats> ComputeStats(const StoreDb& db) {
  StoreStats s;
  s.schema_version = db.schema_version();
  auto it = Iter(db, db.global());
  RawRecord raw;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++s.events;
    s.event_bytes += it->key().size() + it->value().size();
    if (DecodeRawRecord(it->value().ToStringView(), &raw).ok())
      ++s.events_by_type[std::string(raw.type)];
    else
      ++s.undecodable;
  }
  ACCELOPT_RETURN_IF_ERROR(FromRocks(it->status(), "reading the log"));
  it = Iter(db, db.events());
  for (it->SeekToFirst(); it->Valid(); it->Next()) s.index_bytes += it->key().size() + it->value().size();
  ACCELOPT_RETURN_IF_ERROR(FromRocks(it->status(), "reading the stream index"));
  it = Iter(db, db.blobs());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++s.blobs;
    s.blob_bytes += it->value().size();
  }
  ACCELOPT_RETURN_IF_ERROR(FromRocks(it->status(), "reading blobs"));
  it = Iter(db, db.meta());
  std::string hp = kMetaHeadPrefix;
  for (it->Seek(hp); it->Valid() && it->key().starts_with(hp); it->Next()) ++s.streams;
  ACCELOPT_ASSIGN_OR_RETURN(s.last_global, db.GetMetaU64(kMetaLastGlobal));
  for (const auto& name : db.ProjectionNames()) {
    std::string cp;
    if (db.db()->Get(rocksdb::ReadOptions(), db.ProjectionCf(name), "checkpoint", &cp).ok() && cp.size() == 8) {
      s.projection_checkpoints[name] = GetBigEndian64(cp);
    } else {
      s.projection_checkpoints[name] = 0;
    }
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(db.dir(), ec)) {
    if (entry.is_regular_file(ec)) s.disk_bytes += entry.file_size(ec);
  }
  return s;
}

json ToJson(const StoreStats& s) {
  return {{"schema_version", s.schema_version},
          {"events", s.events},
          {"last_global", s.last_global},
          {"streams", s.streams},
          {"blobs", s.blobs},
          {"event_bytes", s.event_bytes},
          {"index_bytes", s.index_bytes},
          {"blob_bytes", s.blob_bytes},
          {"disk_bytes", s.disk_bytes},
          {"events_by_type", s.events_by_type},
          {"projections", s.projection_checkpoints},
          {"undecodable", s.undecodable}};
}

json ToJson(const VerifyReport& r) {
  return {{"ok", r.ok()},
          {"events", r.events},
          {"streams", r.streams},
          {"blobs", r.blobs},
          {"problems", r.problems},
          {"more_problems", r.more_problems},
          {"unknown_types", r.unknown_types}};
}

}  // namespace accelopt::store
