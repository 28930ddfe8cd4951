// workflows::BlobSource over the event log's content-addressed blobs, with a
// small cache of recently read blobs (prompts are rebuilt from the same
// kernel sources many times). Thread-safe.
#pragma once

#include <list>
#include <unordered_map>

#include "base/mutex.hpp"
#include "store/event_log.hpp"
#include "workflows/blob_source.hpp"

namespace accelopt::daemon {

class StoreBlobSource : public workflows::BlobSource {
 public:
  // `log` is not owned and must outlive this object.
  explicit StoreBlobSource(const store::EventLog* log, size_t cache_bytes = 64 << 20)
      : log_(log), cache_bytes_(cache_bytes) {}

  std::optional<std::string> Get(const std::string& sha256_hex) const override;

 private:
  const store::EventLog* log_;
  size_t cache_bytes_;
  mutable Mutex mu_;
  mutable std::list<std::pair<std::string, std::string>> lru_ ACCELOPT_GUARDED_BY(mu_);
  mutable std::unordered_map<std::string, std::list<std::pair<std::string, std::string>>::iterator> index_
      ACCELOPT_GUARDED_BY(mu_);
  mutable size_t used_ ACCELOPT_GUARDED_BY(mu_) = 0;
};

}  // namespace accelopt::daemon
