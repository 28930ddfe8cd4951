// Events as stored in and read from the log.
//
// A NewEvent is what a caller appends; the log assigns stream version,
// global position and recorded-at time, and hands back EventRecords on read.
// Plain values: not thread-safe to mutate concurrently, cheap to move.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::store {

// What a caller appends. `type` must be registered (when the log has a
// registry) and `schema_version` must be that type's current version;
// 0 means "the registry's current version" (1 without a registry).
struct NewEvent {
  std::string type;
  int schema_version = 0;
  json data = json::object();
  std::optional<std::string> causation_id;
  std::optional<std::string> correlation_id;
};

// The envelope of a stored event.
struct EventRecord {
  std::string type;
  int schema_version = 0;  // after upcasting: the registry's current version
  std::string stream;
  uint64_t version = 0;          // 1-based within the stream
  uint64_t global_position = 0;  // 1-based across the whole log
  int64_t recorded_at_us = 0;    // wall clock, microseconds since the epoch
  json data;
  std::optional<std::string> causation_id;
  std::optional<std::string> correlation_id;

  bool operator==(const EventRecord&) const = default;
};

// The envelope as one JSON object (what `accelopt-store dump` prints):
// {"global_position","stream","version","type","schema_version",
//  "recorded_at_us","data"[,"causation_id"][,"correlation_id"]}.
json ToJson(const EventRecord& e);

// Expected stream version for an append (optimistic concurrency).
// An exact version N >= 1 means "the stream's head is N".
inline constexpr int64_t kAnyVersion = -1;  // no check
inline constexpr int64_t kNoStream = 0;     // the stream must not exist yet

// Stream ids: 1..200 bytes, printable ASCII (0x21..0x7e), e.g. "campaign-17".
// Returns InvalidArgument naming the problem otherwise.
Status ValidateStreamId(const std::string& stream);

// Event type names: 1..100 bytes of [A-Za-z0-9_.-], e.g. "CandidateEvaluated".
Status ValidateTypeName(const std::string& type);

}  // namespace accelopt::store
