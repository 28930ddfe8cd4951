// Projections: named folds over the whole log, in global order.
//
// A projection turns the events into a JSON state (a campaign list, the
// candidates of a campaign, a memory bank). The EventLog keeps each
// registered projection up to date as events are appended, stores its state
// together with its checkpoint (the last global position folded in) in one
// atomic write into the projection's own column family, catches it up from
// the checkpoint when opened or read, and can drop and rebuild it from the log.
// A rebuilt projection must equal the live one: Apply must depend on nothing
// but the state and the event (no clock, no randomness, no I/O).
//
// Bump Version() whenever Apply's meaning changes: a stored state of another
// version is dropped and rebuilt at open.
//
// Thread safety: the log calls Initial/Wants/Apply from one thread at a time
// per projection; implementations must not touch the log from Apply.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/json.hpp"
#include "base/status.hpp"
#include "store/event.hpp"

namespace accelopt::store {

class Projection {
 public:
  virtual ~Projection() = default;
  // 1..64 bytes of [a-z0-9_-]; unique within a log.
  virtual std::string Name() const = 0;
  virtual int Version() const = 0;
  // The state before any event. Default: an empty object.
  virtual json Initial() const { return json::object(); }
  // Folds one event (already upcast) into `state`. A non-ok status stops
  // the projection: reads of it return that error until it is rebuilt.
  virtual Status Apply(json& state, const EventRecord& event) const = 0;
};

using FoldFn = std::function<Status(json& state, const EventRecord& event)>;

// A projection from a plain function.
std::shared_ptr<const Projection> MakeProjection(std::string name, int version, json initial, FoldFn fold);

Status ValidateProjectionName(const std::string& name);

// A projection's state as read: `checkpoint` is the last global position
// folded in (0 before any event).
struct ProjectionSnapshot {
  json state;
  uint64_t checkpoint = 0;
};

}  // namespace accelopt::store
