#include "store/store_db.hpp"

#include "store/rocks_logger.hpp"
#include <cstring>
#include <filesystem>
#include <set>

#include "store/record_codec.hpp"
#include "store/rocks_logger.hpp"

namespace accelopt::store {
namespace {

namespace fs = std::filesystem;

const char* const kRequiredCfs[] = {"events", "global", "blobs", "meta"};

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

Status FromRocks(const rocksdb::Status& s, const std::string& context) {
  if (s.ok()) return Status::Ok();
  std::string text = s.ToString();
  std::string msg = context.empty() ? text : context + ": " + text;
  if (Contains(text, "Permission denied") || Contains(text, "Read-only file system")) {
    return PermissionDenied(msg);
  }
  if (Contains(text, "lock file") || Contains(text, "LOCK")) {
    if (Contains(text, "Resource temporarily unavailable") || Contains(text, "lock hold by current process")) {
      return Unavailable(msg + " (the state directory is in use by another process)");
    }
  }
  if (s.IsCorruption()) return Corruption(msg);
  if (s.IsNotFound()) return NotFound(msg);
  return IOError(msg);
}

Result<std::unique_ptr<StoreDb>> StoreDb::Open(const std::string& dir, const StoreDbOptions& options) {
  if (dir.empty()) return InvalidArgument("state directory path is empty");
  std::error_code ec;
  bool exists = fs::exists(dir, ec);
  if (!exists) {
    if (options.read_only || !options.create_if_missing) {
      return NotFound("state directory " + dir + " does not exist");
    }
    fs::create_directories(dir, ec);
    if (ec) {
      std::string m = "cannot create state directory " + dir + ": " + ec.message();
      return ec == std::errc::permission_denied || ec == std::errc::read_only_file_system ? PermissionDenied(m)
                                                                                          : IOError(m);
    }
  } else if (!fs::is_directory(dir, ec)) {
    return InvalidArgument("state directory " + dir + " is not a directory");
  }
  bool has_db = fs::exists(fs::path(dir) / "CURRENT", ec);
  if (!has_db && (options.read_only || !options.create_if_missing)) {
    return NotFound("no store in " + dir + " (no RocksDB CURRENT file)");
  }

  std::unique_ptr<StoreDb> s(new StoreDb);
  s->dir_ = dir;
  s->read_only_ = options.read_only;
  bool fresh = !has_db;
  if (has_db) {
    // Look at the schema read-only first, so that a directory written by a
    // newer build is never touched (a read-write open writes new files).
    ACCELOPT_RETURN_IF_ERROR(s->OpenDb(options, /*read_only=*/true, /*create=*/false));
    std::string value;
    rocksdb::Status rs = rocksdb::Status::NotFound();
    if (s->meta_) rs = s->db_->Get(rocksdb::ReadOptions(), s->meta_, kMetaSchemaVersion, &value);
    if (rs.IsNotFound()) {
      // A creation killed before the schema version was written leaves an
      // empty database: finish creating it. Anything else is not ours.
      ACCELOPT_ASSIGN_OR_RETURN(bool empty, s->IsEmpty());
      if (!empty) {
        return Corruption(dir + " has data but no schema version: not an accelopt state directory, or damaged");
      }
      if (options.read_only) {
        return NotFound("the store in " + dir + " was never completely created (no schema version, no data)");
      }
      fresh = true;
    } else {
      ACCELOPT_RETURN_IF_ERROR(FromRocks(rs, "reading schema version in " + dir));
      int v = 0;
      try {
        size_t used = 0;
        v = std::stoi(value, &used);
        if (used != value.size()) v = 0;
      } catch (const std::exception&) {
        v = 0;
      }
      if (v < 1) return Corruption(dir + " has an unreadable schema version '" + value + "'");
      if (v > kSchemaVersion) {
        return FailedPrecondition(dir + " was written with store schema version " + std::to_string(v) +
                                  "; this build reads up to version " + std::to_string(kSchemaVersion) +
                                  ". Use a newer accelopt; nothing was changed");
      }
      ACCELOPT_RETURN_IF_ERROR(s->CheckRequiredCfs());
      s->schema_version_ = v;
      if (options.read_only) return s;
    }
    s->CloseDb();
  }
  ACCELOPT_RETURN_IF_ERROR(s->OpenDb(options, /*read_only=*/false, /*create=*/fresh));
  ACCELOPT_RETURN_IF_ERROR(s->CheckRequiredCfs());
  if (fresh) {
    rocksdb::WriteOptions wo;
    wo.sync = true;
    ACCELOPT_RETURN_IF_ERROR(FromRocks(s->db_->Put(wo, s->meta_, kMetaSchemaVersion, std::to_string(kSchemaVersion)),
                                       "writing schema version"));
    s->schema_version_ = kSchemaVersion;
  }
  return s;
}

Status StoreDb::CheckRequiredCfs() const {
  const char* names[] = {"events", "global", "blobs", "meta"};
  rocksdb::ColumnFamilyHandle* hs[] = {events_, global_, blobs_, meta_};
  for (int i = 0; i < 4; ++i) {
    if (!hs[i]) return Corruption(dir_ + " is not an accelopt store: column family '" + names[i] + "' is missing");
  }
  return Status::Ok();
}

Result<bool> StoreDb::IsEmpty() const {
  for (auto* h : handles_) {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), h));
    it->SeekToFirst();
    ACCELOPT_RETURN_IF_ERROR(FromRocks(it->status(), "reading " + dir_));
    if (it->Valid()) return false;
  }
  return true;
}

Status StoreDb::OpenDb(const StoreDbOptions& options, bool read_only, bool create) {
  rocksdb::DBOptions dbo;
  dbo.create_if_missing = create;
  dbo.create_missing_column_families = create;
  dbo.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  // No LOG file next to the data: see rocks_logger.hpp.
  dbo.info_log = MakeRocksLogger(dir_, dbo.info_log_level);
  if (options.rocksdb_env) dbo.env = options.rocksdb_env;

  std::vector<std::string> names;
  if (fs::exists(fs::path(dir_) / "CURRENT")) {
    ACCELOPT_RETURN_IF_ERROR(
        FromRocks(rocksdb::DB::ListColumnFamilies(dbo, dir_, &names), "listing column families of " + dir_));
  } else {
    names = {rocksdb::kDefaultColumnFamilyName};
  }
  if (create) {
    // Also finishes a creation that was interrupted after some families.
    std::set<std::string> have(names.begin(), names.end());
    for (const char* cf : kRequiredCfs) {
      if (!have.count(cf)) names.push_back(cf);
    }
  }
  rocksdb::ColumnFamilyOptions cfo;
  std::vector<rocksdb::ColumnFamilyDescriptor> descs;
  for (const auto& n : names) descs.emplace_back(n, cfo);
  rocksdb::Status rs = read_only ? rocksdb::DB::OpenForReadOnly(dbo, dir_, descs, &handles_, &db_)
                                 : rocksdb::DB::Open(dbo, dir_, descs, &handles_, &db_);
  if (!rs.ok()) {
    db_ = nullptr;
    handles_.clear();
    Status st = FromRocks(rs, std::string("opening ") + (read_only ? "(read-only) " : "") + dir_);
    if (st.code() == Code::kPermissionDenied && !read_only) {
      return Status(st.code(), st.message() + " (open it read-only to inspect it)");
    }
    return st;
  }
  MutexLock lock(&mu_);
  for (auto* h : handles_) {
    const std::string& n = h->GetName();
    if (n == "events")
      events_ = h;
    else if (n == "global")
      global_ = h;
    else if (n == "blobs")
      blobs_ = h;
    else if (n == "meta")
      meta_ = h;
    else if (n.rfind(kProjectionCfPrefix, 0) == 0)
      projections_[n.substr(strlen(kProjectionCfPrefix))] = h;
  }
  return Status::Ok();
}

void StoreDb::CloseDb() {
  if (!db_) return;
  for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
  handles_.clear();
  {
    MutexLock lock(&mu_);
    projections_.clear();
  }
  events_ = global_ = blobs_ = meta_ = nullptr;
  db_->Close();
  delete db_;
  db_ = nullptr;
}

StoreDb::~StoreDb() { CloseDb(); }

std::vector<std::string> StoreDb::ProjectionNames() const {
  MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [n, h] : projections_) out.push_back(n);
  return out;
}

rocksdb::ColumnFamilyHandle* StoreDb::ProjectionCf(const std::string& name) const {
  MutexLock lock(&mu_);
  auto it = projections_.find(name);
  return it == projections_.end() ? nullptr : it->second;
}

Result<rocksdb::ColumnFamilyHandle*> StoreDb::GetOrCreateProjectionCf(const std::string& name) {
  if (auto* h = ProjectionCf(name)) return h;
  if (read_only_) return FailedPrecondition("store opened read-only: cannot create projection " + name);
  rocksdb::ColumnFamilyHandle* h = nullptr;
  ACCELOPT_RETURN_IF_ERROR(
      FromRocks(db_->CreateColumnFamily(rocksdb::ColumnFamilyOptions(), kProjectionCfPrefix + name, &h),
                "creating column family for projection " + name));
  MutexLock lock(&mu_);
  handles_.push_back(h);
  projections_[name] = h;
  return h;
}

Result<rocksdb::ColumnFamilyHandle*> StoreDb::ReplaceProjectionCf(const std::string& name) {
  if (read_only_) return FailedPrecondition("store opened read-only: cannot rebuild projection " + name);
  if (auto* old = ProjectionCf(name)) {
    ACCELOPT_RETURN_IF_ERROR(FromRocks(db_->DropColumnFamily(old), "dropping projection " + name));
    MutexLock lock(&mu_);
    projections_.erase(name);
    std::erase(handles_, old);
    db_->DestroyColumnFamilyHandle(old);
  }
  return GetOrCreateProjectionCf(name);
}

Result<uint64_t> StoreDb::GetMetaU64(const std::string& key) const {
  std::string value;
  auto rs = db_->Get(rocksdb::ReadOptions(), meta_, key, &value);
  if (rs.IsNotFound()) return uint64_t{0};
  ACCELOPT_RETURN_IF_ERROR(FromRocks(rs, "reading meta " + key));
  if (value.size() != 8) return Corruption("meta " + key + " is not 8 bytes");
  return GetBigEndian64(value);
}

}  // namespace accelopt::store
