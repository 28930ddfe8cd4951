// Backend: something that evaluates one candidate kernel (after ninja's
// CommandRunner: start, wait, a result that tells the outcomes apart, and a
// scripted fake for tests — tests/fakes/evaluator/fake_backend.hpp).
//
// Contract:
// - Evaluate blocks the calling thread until the result is known. It never
//   hangs: every stage has a wall-clock limit (request settings), and when
//   `cancel` becomes true it stops what it is running and returns a result
//   with status kCancelled soon (within about a second).
// - Thread-safe: the dispatcher calls Evaluate from many threads at once; a
//   backend bounds nothing itself (the dispatcher's slots do).
// - Failures of the candidate (compile error, wrong result, crash, timeout)
//   are results, not Status errors; a broken backend (missing compiler,
//   unreadable problem) is a result with status kInternalError and a reason.
// - Untrusted code never runs in the caller's process.
// - Placement: a backend whose evaluation lives on beyond the caller's
//   process (a Slurm job) reports where it is through Placement::placed as
//   soon as it exists, and before it waits on it; the runtime records that
//   in the event log. After a restart the runtime passes the last recorded
//   placement of the same request back as Placement::previous, and the
//   backend takes that evaluation up again instead of starting another.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "base/json.hpp"
#include "evaluators/protocol.hpp"

namespace accelopt::eval {

struct Placement {
  // Called on the evaluating thread, synchronously: when it returns, the
  // placement is durable (the runtime appended it). May be empty.
  std::function<void(const json& placement)> placed;
  // The last placement recorded for this request's id (null: none). The
  // backend checks it names this very request before trusting it.
  json previous;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Stable name matched against EvalRequest::backend ("cpu", "fake", ...).
  virtual std::string name() const = 0;
  // REQUIRES: request.backend == name(). `cancel` may be null.
  virtual EvalResult Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) = 0;
  // The same with placement reporting (see above); backends that run in a
  // child of the caller's process ignore it.
  virtual EvalResult EvaluatePlaced(const EvalRequest& request, const std::atomic<bool>* cancel,
                                    const Placement& placement) {
    (void)placement;
    return Evaluate(request, cancel);
  }
  // What `health` shows of this backend (its caches' sizes and limits, ...);
  // null: nothing. Called from any thread while evaluations run; cheap (no
  // disk walk: figures the backend already keeps).
  virtual json Health() { return nullptr; }
};

}  // namespace accelopt::eval
