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
#pragma once

#include <atomic>
#include <string>

#include "evaluators/protocol.hpp"

namespace accelopt::eval {

class Backend {
 public:
  virtual ~Backend() = default;
  // Stable name matched against EvalRequest::backend ("cpu", "fake", ...).
  virtual std::string name() const = 0;
  // REQUIRES: request.backend == name(). `cancel` may be null.
  virtual EvalResult Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) = 0;
};

}  // namespace accelopt::eval
