// Offline inspection of a state directory (the `accelopt-store` tool's
// core; also used by tests). Works on a StoreDb opened read-only and on raw
// records: no registry is needed, nothing is upcast, nothing is written.
//
// Thread safety: functions only read; safe alongside other readers.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "store/event_types.hpp"
#include "store/store_db.hpp"

namespace accelopt::store {

struct DumpOptions {
  std::string stream;  // only this stream; empty (default): all
  uint64_t from_global = 1;
};

// Writes each event as one JSON line (store/event.hpp ToJson, data as
// stored) in global order. Stops with kCorruption (naming the position) at
// the first record that cannot be decoded; the lines before it are written.
Status DumpEvents(const StoreDb& db, const DumpOptions& options, std::ostream& out);

struct VerifyReport {
  uint64_t events = 0;
  uint64_t streams = 0;
  uint64_t blobs = 0;
  // Event types not in the registry, with counts (only when one was given).
  std::map<std::string, uint64_t> unknown_types;
  // One line per problem found, at most `max_problems`; `more_problems`
  // counts the rest.
  std::vector<std::string> problems;
  uint64_t more_problems = 0;
  bool ok() const { return problems.empty(); }
};

// Checks everything the log promises: global positions 1..N without gaps;
// every record decodes (checksum, envelope, JSON data) and names its own
// position; each stream's versions run 1..head without gaps; the stream index
// maps exactly the stored records; meta's heads and last position agree;
// every blob matches its hash; projection checkpoints lie within the log.
// With a registry, also that every type is known and upcasts.
VerifyReport Verify(const StoreDb& db, const EventTypeRegistry* registry = nullptr, size_t max_problems = 50);

struct StoreStats {
  int schema_version = 0;
  uint64_t events = 0;
  uint64_t last_global = 0;
  uint64_t streams = 0;
  uint64_t blobs = 0;
  uint64_t event_bytes = 0;  // keys + values in the global order
  uint64_t index_bytes = 0;  // keys + values in the stream index
  uint64_t blob_bytes = 0;
  uint64_t disk_bytes = 0;  // all files in the directory
  std::map<std::string, uint64_t> events_by_type;
  std::map<std::string, uint64_t> projection_checkpoints;
  uint64_t undecodable = 0;  // records whose envelope could not be read
};

Result<StoreStats> ComputeStats(const StoreDb& db);
json ToJson(const StoreStats& s);
json ToJson(const VerifyReport& r);

}  // namespace accelopt::store
