// Read access to content-addressed blobs (prompts, replies, kernel sources)
// for Decide. Reads by sha256 are deterministic, so Decide stays pure.
//
// Thread safety: implementations used by one Decide call at a time need not
// be thread-safe; the store's implementation is.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "base/sha256.hpp"

namespace accelopt::workflows {

class BlobSource {
 public:
  virtual ~BlobSource() = default;
  // The bytes whose sha256 (lower-case hex) is `sha256_hex`, or nullopt.
  virtual std::optional<std::string> Get(const std::string& sha256_hex) const = 0;
};

// An in-memory BlobSource (tests, and callers that gather blobs themselves).
class MapBlobSource : public BlobSource {
 public:
  std::optional<std::string> Get(const std::string& sha256_hex) const override {
    auto it = blobs_.find(sha256_hex);
    if (it == blobs_.end()) return std::nullopt;
    return it->second;
  }
  // Stores `content` under its own hash and returns the hash.
  std::string Put(const std::string& content) {
    std::string h = Sha256Hex(content);
    blobs_.emplace(h, content);
    return h;
  }
  size_t size() const { return blobs_.size(); }

 private:
  std::map<std::string, std::string> blobs_;
};

}  // namespace accelopt::workflows
