#include "evaluators/judge/reference_cache.hpp"

#include <algorithm>
#include <cstdlib>

namespace accelopt::eval::judge {

uint64_t FolderBytes(Env* env, const std::string& dir) {
  uint64_t total = 0;
  auto names = env->ListDir(dir);
  if (!names.ok()) return 0;
  for (const auto& n : *names) {
    const std::string path = dir + "/" + n;
    if (env->IsDirectory(path)) {
      if (auto inner = env->ListDir(path); inner.ok())
        for (const auto& m : *inner)
          if (auto size = env->FileSize(path + "/" + m); size.ok()) total += *size;
    } else if (auto size = env->FileSize(path); size.ok()) {
      total += *size;
    }
  }
  return total;
}

Result<CacheUsage> EvictReferenceCache(Env* env, const std::string& harness_root, const std::string& current_version,
                                       uint64_t max_bytes, const std::vector<std::string>& keep) {
  CacheUsage usage;
  if (!env->IsDirectory(harness_root)) return usage;
  ACCELOPT_ASSIGN_OR_RETURN(std::vector<std::string> names, env->ListDir(harness_root));
  struct Folder {
    std::string name;
    uint64_t bytes = 0;
    bool old_version = false;
    int64_t last_used = 0;
  };
  std::vector<Folder> folders;
  for (const auto& n : names) {
    const std::string path = harness_root + "/" + n;
    if (!env->IsDirectory(path)) continue;
    Folder f{n, FolderBytes(env, path)};
    if (n.rfind("main-", 0) == 0) {
      f.old_version = n != current_version;
    } else {
      auto version = env->ReadFile(path + "/judge_version");
      f.old_version = !version.ok() || *version != current_version;
      if (auto used = env->ReadFile(path + "/last_used"); used.ok()) f.last_used = std::atoll(used->c_str());
    }
    usage.bytes += f.bytes;
    folders.push_back(std::move(f));
  }
  if (max_bytes == 0 || usage.bytes <= max_bytes) return usage;
  // Old judge versions first, then the least recently used.
  std::sort(folders.begin(), folders.end(), [](const Folder& a, const Folder& b) {
    if (a.old_version != b.old_version) return a.old_version;
    return a.last_used < b.last_used;
  });
  for (const auto& f : folders) {
    if (usage.bytes <= max_bytes) break;
    if (f.name == current_version || std::find(keep.begin(), keep.end(), harness_root + "/" + f.name) != keep.end())
      continue;
    if (Status st = env->RemoveAll(harness_root + "/" + f.name); !st.ok()) continue;
    usage.bytes -= f.bytes;
    usage.evicted_bytes += f.bytes;
    usage.evicted.push_back(f.name);
  }
  return usage;
}

}  // namespace accelopt::eval::judge
