// Registry of known event types: current schema version and upcasters.
//
// Each part of the system registers its event types at startup, before the
// log is opened; the registry is then only read. Type names are frozen once
// released. A type's schema moves forward one version at a time: an upcaster
// for version v turns data written at v into data at v+1, so a record of any
// older version is brought to the current one when read.
//
// Errors on read (loud, never skipped):
//   - a type that is not registered: kUnimplemented "unknown event type 'X'"
//     (written by another build, or its registration is missing)
//   - a schema version newer than the registered one: kUnimplemented
//   - a missing upcaster or one that throws: kCorruption
// Undecodable bytes are kCorruption (record_codec.hpp).
//
// Thread safety: Register* must happen before concurrent use; after that all
// const methods are thread-safe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "store/event.hpp"

namespace accelopt::store {

// Turns data of version v into data of version v+1. May throw (json
// exceptions); the registry turns a throw into kCorruption.
using Upcaster = std::function<json(json)>;

class EventTypeRegistry {
 public:
  // Registers `type` whose current schema version is `current_version` (>= 1).
  // `upcasters[v]` upcasts from v to v+1 and must exist for 1 <= v < current.
  // AlreadyExists if the type is registered; InvalidArgument on a bad name,
  // version or missing upcaster step.
  Status Register(const std::string& type, int current_version = 1, std::map<int, Upcaster> upcasters = {});

  bool Knows(const std::string& type) const { return types_.count(type) > 0; }
  std::vector<std::string> Types() const;

  // Validates an event before it is appended: the type is registered and
  // `schema_version` is 0 (meaning current) or the current version.
  // Returns the version to record.
  Result<int> CheckForAppend(const std::string& type, int schema_version) const;

  // Brings `e` (as decoded from disk) to the current schema version of its
  // type, applying upcasters in order; errors as described above.
  Status Upcast(EventRecord* e) const;

 private:
  struct TypeInfo {
    int current_version = 1;
    std::map<int, Upcaster> upcasters;
  };
  std::map<std::string, TypeInfo> types_;
};

// True when `s` is the "unknown event type" error of Upcast.
bool IsUnknownEventType(const Status& s);

}  // namespace accelopt::store
