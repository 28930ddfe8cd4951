// StoreDb: the RocksDB database under a state directory, with its column
// families, schema check and error mapping. Shared by EventLog (read-write)
// and the offline inspection code (read-only). Internal to store/: other
// parts use EventLog.
//
// Column families:
//   events                stream index: <stream>\0<version BE> -> <global BE>
//   global                <global BE> -> encoded record (record_codec.hpp)
//   blobs                 <sha256 raw> -> bytes
//   meta                  "schema_version" -> decimal text
//                         "last_global"    -> u64 BE
//                         "head/<stream>"  -> u64 BE (the stream's last version)
//   projection.<name>     one per projection (projection_set.hpp)
//
// Thread safety: the accessors are thread-safe; projection column families
// may be replaced (ReplaceProjectionCf) only by their single owner, which
// must stop using the old handle.
#pragma once

#include <rocksdb/db.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/mutex.hpp"
#include "base/status.hpp"

namespace accelopt::store {

// Layout version written into meta. A directory with a newer one is refused.
inline constexpr int kSchemaVersion = 1;

inline constexpr const char* kMetaSchemaVersion = "schema_version";
inline constexpr const char* kMetaLastGlobal = "last_global";
inline constexpr const char* kMetaHeadPrefix = "head/";
inline constexpr const char* kProjectionCfPrefix = "projection.";

struct StoreDbOptions {
  // Create the directory and an empty store if there is none. Default false.
  bool create_if_missing = false;
  // Open without writing anything (rocksdb OpenForReadOnly). Default false.
  bool read_only = false;
  // File system/clock for RocksDB (tests pass a fault-injecting one).
  // Not owned; must outlive the StoreDb. Default nullptr: the real one.
  rocksdb::Env* rocksdb_env = nullptr;
};

// Maps a RocksDB status to ours: permission problems -> kPermissionDenied,
// another process holding the LOCK -> kUnavailable, corruption ->
// kCorruption, everything else -> kIOError. `context` prefixes the message.
Status FromRocks(const rocksdb::Status& s, const std::string& context);

class StoreDb {
 public:
  // Errors: kNotFound (no directory / no store there and !create_if_missing),
  // kFailedPrecondition (written by a newer schema; nothing is modified),
  // kPermissionDenied (read-only directory opened for writing),
  // kUnavailable (locked by another process), kCorruption, kIOError.
  static Result<std::unique_ptr<StoreDb>> Open(const std::string& dir, const StoreDbOptions& options);
  ~StoreDb();
  StoreDb(const StoreDb&) = delete;
  StoreDb& operator=(const StoreDb&) = delete;

  rocksdb::DB* db() const { return db_; }
  rocksdb::ColumnFamilyHandle* events() const { return events_; }
  rocksdb::ColumnFamilyHandle* global() const { return global_; }
  rocksdb::ColumnFamilyHandle* blobs() const { return blobs_; }
  rocksdb::ColumnFamilyHandle* meta() const { return meta_; }
  const std::string& dir() const { return dir_; }
  bool read_only() const { return read_only_; }
  int schema_version() const { return schema_version_; }

  // Names of projections that have a column family.
  std::vector<std::string> ProjectionNames() const;
  // The handle, or nullptr when there is none.
  rocksdb::ColumnFamilyHandle* ProjectionCf(const std::string& name) const;
  // Returns the existing handle or creates the column family.
  Result<rocksdb::ColumnFamilyHandle*> GetOrCreateProjectionCf(const std::string& name);
  // Drops the column family (if any) and creates an empty one.
  Result<rocksdb::ColumnFamilyHandle*> ReplaceProjectionCf(const std::string& name);

  // Reads a u64 BE value from meta; 0 when absent.
  Result<uint64_t> GetMetaU64(const std::string& key) const;

 private:
  StoreDb() = default;
  Status OpenDb(const StoreDbOptions& options, bool read_only, bool create);
  void CloseDb();
  Status CheckRequiredCfs() const;
  Result<bool> IsEmpty() const;

  std::string dir_;
  bool read_only_ = false;
  int schema_version_ = 0;
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::ColumnFamilyHandle* events_ = nullptr;
  rocksdb::ColumnFamilyHandle* global_ = nullptr;
  rocksdb::ColumnFamilyHandle* blobs_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;
  mutable Mutex mu_;
  std::map<std::string, rocksdb::ColumnFamilyHandle*> projections_ ACCELOPT_GUARDED_BY(mu_);
};

}  // namespace accelopt::store
