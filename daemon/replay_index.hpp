// ReplayIndex: the LLM replies recorded in the event log, by request, for
// the replay provider (llm/, ProviderSetOptions::replay_lookup): a campaign
// re-run against the log gets the very replies the recorded run got.
//
// Contract:
// - Lookup(request_sha256) returns the recorded response JSON (the blob
//   named by the response_json_sha256 of an LlmCallCompleted event whose
//   request_sha256 matches), or nullopt when no such call was recorded or its
//   blob cannot be read. With several calls of one request, the first
//   recorded wins.
// - The index is built on first use and extended on a miss: a miss reads
//   the log from the last position it scanned, so a call recorded after the
//   index was built is found; nothing is ever read twice.
// - It never writes to the log; a read error is a miss (and retried on the
//   next miss).
//
// Thread safety: Lookup may be called from any thread; calls are serialised
// (a miss scans the log under the lock). The log must outlive the index.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "base/mutex.hpp"
#include "store/event_log.hpp"

namespace accelopt::daemon {

class ReplayIndex {
 public:
  explicit ReplayIndex(store::EventLog* log) : log_(log) {}
  std::optional<std::string> Lookup(const std::string& request_sha256) ACCELOPT_EXCLUDES(mu_);

 private:
  // The blob of a known request; nullopt when unknown or unreadable.
  std::optional<std::string> Find(const std::string& request_sha256) ACCELOPT_REQUIRES(mu_);

  store::EventLog* const log_;
  Mutex mu_;
  std::map<std::string, std::string> index_ ACCELOPT_GUARDED_BY(mu_);  // request sha256 -> response blob sha256
  uint64_t scanned_ ACCELOPT_GUARDED_BY(mu_) = 0;                      // last global position read
};

}  // namespace accelopt::daemon
