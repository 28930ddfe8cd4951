// The LLM client's one asynchronous interface: a Provider starts a call
// and delivers its result to a callback; a CallHandle cancels it. Every
// provider kind (llm/http_provider.hpp, command_provider.hpp,
// replay_provider.hpp) implements it; llm/client.hpp builds them from the
// config and holds the callback contract (thread, once, never inside Call).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "llm/cancel.hpp"
#include "llm/config.hpp"
#include "llm/types.hpp"

namespace accelopt::llm {

using LlmCallback = std::function<void(LlmResult)>;

// Returned by Call(). Copyable; cancelling a finished call does nothing.
class CallHandle {
 public:
  CallHandle() = default;
  explicit CallHandle(std::shared_ptr<CancelToken> token) : token_(std::move(token)) {}
  // Non-blocking and thread-safe; the callback still runs (with kCancelled
  // unless the result was already delivered).
  void Cancel() const {
    if (token_) token_->Cancel();
  }
  bool valid() const { return token_ != nullptr; }

 private:
  std::shared_ptr<CancelToken> token_;
};

class Provider {
 public:
  virtual ~Provider() = default;

  virtual const std::string& name() const = 0;
  virtual ProviderKind kind() const = 0;

  // Starts a call. `cancel` (may be null) must outlive the call.
  // Thread-safe.
  virtual CallHandle Call(LlmRequest request, LlmCallback done, const std::atomic<bool>* cancel = nullptr) = 0;

  // Blocking convenience around Call().
  // REQUIRES: not called on a callback thread of this provider (deadlock).
  LlmResult CallBlocking(LlmRequest request, const std::atomic<bool>* cancel = nullptr);
};

// Backs the replay provider: request hash → the recorded response JSON (the
// form of ToJson(LlmResponse)), or nullopt when none was recorded. Called on
// the replay provider's worker thread; must be thread-safe.
using ReplayLookup = std::function<std::optional<std::string>(const std::string& request_hash)>;

// Starts a call with `call` and waits for its result (the blocking
// conveniences above and in ProviderSet).
// REQUIRES: not called on the callback thread of the call it starts.
LlmResult WaitForCall(const std::function<CallHandle(LlmCallback)>& call);

}  // namespace accelopt::llm
