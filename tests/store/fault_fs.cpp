#include "tests/store/fault_fs.hpp"

#include <unistd.h>

namespace accelopt::store::testing {
namespace {

rocksdb::IOStatus PowerOff() { return rocksdb::IOStatus::IOError("simulated power loss"); }

class FaultFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultFile(std::string name, FaultFs* fs, std::unique_ptr<rocksdb::FSWritableFile> f)
      : FSWritableFileOwnerWrapper(std::move(f)), name_(std::move(name)), fs_(fs) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& d, const rocksdb::IOOptions& o,
                           rocksdb::IODebugContext* dbg) override {
    if (fs_->power_off()) return PowerOff();
    auto s = target()->Append(d, o, dbg);
    return s.ok() ? fs_->OnAppend(name_, d.size()) : s;
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& d, const rocksdb::IOOptions& o, const rocksdb::DataVerificationInfo&,
                           rocksdb::IODebugContext* dbg) override {
    return Append(d, o, dbg);
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& d, uint64_t offset, const rocksdb::IOOptions& o,
                                     rocksdb::IODebugContext* dbg) override {
    if (fs_->power_off()) return PowerOff();
    auto s = target()->PositionedAppend(d, offset, o, dbg);
    if (s.ok()) fs_->OnTruncate(name_, offset + d.size());
    return s;
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& d, uint64_t offset, const rocksdb::IOOptions& o,
                                     const rocksdb::DataVerificationInfo&, rocksdb::IODebugContext* dbg) override {
    return PositionedAppend(d, offset, o, dbg);
  }
  rocksdb::IOStatus Truncate(uint64_t size, const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
    if (fs_->power_off()) return PowerOff();
    auto s = target()->Truncate(size, o, dbg);
    if (s.ok()) fs_->OnTruncate(name_, size);
    return s;
  }
  rocksdb::IOStatus Flush(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
    if (fs_->power_off()) return PowerOff();
    return target()->Flush(o, dbg);
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
    if (fs_->power_off()) return PowerOff();
    auto s = target()->Sync(o, dbg);
    return s.ok() ? fs_->OnSync(name_) : s;
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
    if (fs_->power_off()) return PowerOff();
    auto s = target()->Fsync(o, dbg);
    return s.ok() ? fs_->OnSync(name_) : s;
  }
  // A range sync is a hint, not a durability point: ignored.
  rocksdb::IOStatus RangeSync(uint64_t, uint64_t, const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return fs_->power_off() ? PowerOff() : rocksdb::IOStatus::OK();
  }
  rocksdb::IOStatus Close(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
    // Closing never makes data durable; let the real file close either way.
    return target()->Close(o, dbg);
  }

 private:
  std::string name_;
  FaultFs* fs_;
};

}  // namespace

rocksdb::IOStatus FaultFs::Wrap(const std::string& f, rocksdb::IOStatus s, uint64_t initial_size,
                                std::unique_ptr<rocksdb::FSWritableFile>* r) {
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    FileState& st = files_[f];
    st.size = initial_size;
    st.synced = std::min(st.synced, initial_size);
  }
  *r = std::make_unique<FaultFile>(f, this, std::move(*r));
  return s;
}

rocksdb::IOStatus FaultFs::NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                           std::unique_ptr<rocksdb::FSWritableFile>* r, rocksdb::IODebugContext* dbg) {
  if (power_off_) return PowerOff();
  {
    std::lock_guard<std::mutex> lock(mu_);
    files_[f] = FileState{};  // a new (truncated) file: nothing durable yet
  }
  return Wrap(f, target()->NewWritableFile(f, o, r, dbg), 0, r);
}

rocksdb::IOStatus FaultFs::ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                              std::unique_ptr<rocksdb::FSWritableFile>* r,
                                              rocksdb::IODebugContext* dbg) {
  if (power_off_) return PowerOff();
  uint64_t size = 0;
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(f);
    if (it != files_.end()) {
      known = true;
      size = it->second.size;
    }
  }
  if (!known) {
    // Existed before we were watching: all of it counts as durable.
    if (!target()->GetFileSize(f, rocksdb::IOOptions(), &size, dbg).ok()) size = 0;
    std::lock_guard<std::mutex> lock(mu_);
    files_[f] = FileState{size, size};
  }
  return Wrap(f, target()->ReopenWritableFile(f, o, r, dbg), size, r);
}

rocksdb::IOStatus FaultFs::ReuseWritableFile(const std::string& f, const std::string& old,
                                             const rocksdb::FileOptions& o, std::unique_ptr<rocksdb::FSWritableFile>* r,
                                             rocksdb::IODebugContext* dbg) {
  if (power_off_) return PowerOff();
  {
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(old);
    files_[f] = FileState{};
  }
  return Wrap(f, target()->ReuseWritableFile(f, old, o, r, dbg), 0, r);
}

rocksdb::IOStatus FaultFs::RenameFile(const std::string& s, const std::string& t, const rocksdb::IOOptions& o,
                                      rocksdb::IODebugContext* dbg) {
  if (power_off_) return PowerOff();
  auto st = target()->RenameFile(s, t, o, dbg);
  if (st.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(s);
    if (it != files_.end()) {
      files_[t] = it->second;
      files_.erase(s);
    } else {
      files_.erase(t);
    }
  }
  return st;
}

rocksdb::IOStatus FaultFs::DeleteFile(const std::string& f, const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) {
  if (power_off_) return PowerOff();
  auto s = target()->DeleteFile(f, o, dbg);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(f);
  }
  return s;
}

rocksdb::IOStatus FaultFs::OnAppend(const std::string& f, uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  files_[f].size += n;
  return rocksdb::IOStatus::OK();
}

rocksdb::IOStatus FaultFs::OnSync(const std::string& f) {
  int at = power_off_at_.load();
  while (at >= 0) {
    if (at == 0) {
      power_off_ = true;
      return PowerOff();
    }
    if (power_off_at_.compare_exchange_weak(at, at - 1)) break;
  }
  int left = syncs_left_.load();
  while (left >= 0) {
    if (left == 0) return rocksdb::IOStatus::IOError("injected sync failure");
    if (syncs_left_.compare_exchange_weak(left, left - 1)) break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  FileState& st = files_[f];
  st.synced = st.size;
  return rocksdb::IOStatus::OK();
}

void FaultFs::OnTruncate(const std::string& f, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  FileState& st = files_[f];
  st.size = size;
  st.synced = std::min(st.synced, size);
}

uint64_t FaultFs::DropUnsyncedData() {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t dropped = 0;
  for (auto& [name, st] : files_) {
    uint64_t actual = 0;
    if (!target()->GetFileSize(name, rocksdb::IOOptions(), &actual, nullptr).ok()) continue;
    if (actual > st.synced) {
      dropped += actual - st.synced;
      if (truncate(name.c_str(), static_cast<off_t>(st.synced)) != 0) continue;
    }
    st.size = st.synced;
  }
  return dropped;
}

}  // namespace accelopt::store::testing
