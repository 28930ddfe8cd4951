#include "daemon/store_blob_source.hpp"

namespace accelopt::daemon {

std::optional<std::string> StoreBlobSource::Get(const std::string& sha256_hex) const {
  {
    MutexLock lock(&mu_);
    auto it = index_.find(sha256_hex);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
  }
  auto r = log_->GetBlob(sha256_hex);
  if (!r.ok()) return std::nullopt;
  MutexLock lock(&mu_);
  if (r->size() <= cache_bytes_ / 4 && !index_.count(sha256_hex)) {
    lru_.emplace_front(sha256_hex, *r);
    index_[sha256_hex] = lru_.begin();
    used_ += r->size();
    while (used_ > cache_bytes_ && !lru_.empty()) {
      used_ -= lru_.back().second.size();
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }
  return *r;
}

}  // namespace accelopt::daemon
