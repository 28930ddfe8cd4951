// A RocksDB file system for tests that simulates power loss and I/O errors
// (after leveldb/RocksDB's fault-injection test env).
//
// Every write goes through to the real file, and the file system remembers,
// per file, how many bytes have been made durable by Sync/Fsync. After a
// simulated power cut (SetPowerOff(true): from then on every write, sync,
// create, rename and delete fails, so nothing more reaches "disk"), and once
// the database is closed, DropUnsyncedData() truncates each file to its
// durable length, which is what a machine would find after losing power.
// FailSyncsAfter(n) makes every sync after the next n fail with an I/O error.
//
// Thread-safe.
#pragma once

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace accelopt::store::testing {

class FaultFs : public rocksdb::FileSystemWrapper {
 public:
  explicit FaultFs(const std::shared_ptr<rocksdb::FileSystem>& base = rocksdb::FileSystem::Default())
      : FileSystemWrapper(base) {}
  const char* Name() const override { return "FaultFs"; }

  void SetPowerOff(bool off) { power_off_ = off; }
  bool power_off() const { return power_off_; }
  // -1 (default): never fail.
  void FailSyncsAfter(int n) { syncs_left_ = n; }
  // The power goes out during the (n+1)-th sync from now: that sync fails
  // and its data stays unsynced. -1 (default): never.
  void PowerOffAtSync(int n) { power_off_at_ = n; }
  // Truncates every file written through this file system to its synced
  // length. REQUIRES: no database has the files open. Returns how many bytes
  // were thrown away.
  uint64_t DropUnsyncedData();

  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& f, const std::string& old, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSWritableFile>* r,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& s, const std::string& t, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& f, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* dbg) override;

  // Called by the files.
  rocksdb::IOStatus OnAppend(const std::string& f, uint64_t n);
  rocksdb::IOStatus OnSync(const std::string& f);
  void OnTruncate(const std::string& f, uint64_t size);

 private:
  struct FileState {
    uint64_t size = 0;
    uint64_t synced = 0;
  };
  rocksdb::IOStatus Wrap(const std::string& f, rocksdb::IOStatus s, uint64_t initial_size,
                         std::unique_ptr<rocksdb::FSWritableFile>* r);

  std::atomic<bool> power_off_{false};
  std::atomic<int> syncs_left_{-1};
  std::atomic<int> power_off_at_{-1};
  std::mutex mu_;
  std::map<std::string, FileState> files_;
};

// An Env that uses `fs` for files and the default Env for everything else.
inline std::unique_ptr<rocksdb::Env> MakeEnv(const std::shared_ptr<FaultFs>& fs) {
  return rocksdb::NewCompositeEnv(fs);
}

}  // namespace accelopt::store::testing
