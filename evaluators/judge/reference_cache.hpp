// The size limit of the judge's cache (<cache_dir>/harness/: per problem, the
// judge and runner builds and the cached case files under refs/). Problem
// folders go whole: those built by another judge version first (their
// `judge_version` file names other main objects, or none), then the least
// recently used (their `last_used` file, written by HarnessCache::Get at
// each evaluation). Never the folder an evaluation is using (`keep`). A
// removed folder is rebuilt, and its references recomputed, by the next
// evaluation that needs it: eviction costs time, never a verdict.
//
// Thread safety: reentrant; callers serialize eviction per cache (HarnessCache).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"

namespace accelopt::eval::judge {

constexpr uint64_t kDefaultReferenceCacheBytes = uint64_t{20} << 30;

struct CacheUsage {
  uint64_t bytes = 0;                // everything under harness/ after eviction
  uint64_t evicted_bytes = 0;        // removed by this call
  std::vector<std::string> evicted;  // folder names removed
  int64_t checked_at_us = 0;         // when (Env clock); 0: never checked
};

// Removes folders of `harness_root` until it holds at most `max_bytes`
// (0: no limit). `current_version`: the main objects' folder name
// ("main-<key>") of this judge; `keep`: folders in use.
Result<CacheUsage> EvictReferenceCache(Env* env, const std::string& harness_root, const std::string& current_version,
                                       uint64_t max_bytes, const std::vector<std::string>& keep);

// Bytes under `dir` (files of it and of its sub-folders, two levels deep: a
// problem folder and its refs/).
uint64_t FolderBytes(Env* env, const std::string& dir);

}  // namespace accelopt::eval::judge
