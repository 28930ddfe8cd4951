#include "daemon/replay_index.hpp"

#include "workflows/event.hpp"

namespace accelopt::daemon {

std::optional<std::string> ReplayIndex::Find(const std::string& request_sha256) {
  auto it = index_.find(request_sha256);
  if (it == index_.end()) return std::nullopt;
  auto blob = log_->GetBlob(it->second);
  if (!blob.ok()) return std::nullopt;
  return *blob;
}

std::optional<std::string> ReplayIndex::Lookup(const std::string& request_sha256) {
  MutexLock lock(&mu_);
  if (auto r = Find(request_sha256)) return r;
  auto events = log_->ReadAll(scanned_ + 1);
  if (!events.ok()) return std::nullopt;
  for (const auto& e : *events) {
    scanned_ = e.global_position;
    if (e.type != workflows::event_type::kLlmCallCompleted) continue;
    std::string h = e.data.value("request_sha256", "");
    std::string resp = e.data.value("response_json_sha256", "");
    if (!h.empty() && !resp.empty()) index_.emplace(h, resp);
  }
  return Find(request_sha256);
}

}  // namespace accelopt::daemon
