// HTTP transport over libcurl: one thread running curl_multi_poll, woken by
// curl_multi_wakeup, plus timers (used for retry backoff).
//
// Threading: Start(), After() and Post() are thread-safe and never block on
// I/O. Every completion callback and timer function runs on the transport
// thread, one at a time, and must not block (post heavier work elsewhere). A
// callback may call Start/After/Post again. The destructor stops the loop:
// transfers still running complete with kCancelled, pending timers fire at
// once (their tokens are then cancelled, if they have one), and the thread is
// joined. REQUIRES: the destructor is not called from the transport thread.
//
// Timeouts: connect and total through curl; the stall timeout is measured by
// the loop itself (no byte for `stall` after the first byte of the response)
// so that a model thinking for minutes before its first byte is not a stall.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "llm/cancel.hpp"
#include "llm/config.hpp"

namespace accelopt::llm {

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<std::string> headers;  // "Name: value"; may hold secrets (never logged)
  std::string body;
  Timeouts timeouts;
  size_t max_response_bytes = 32u << 20;
};

enum class TransportError {
  kNone,
  kConnect,    // could not connect / resolve (retryable)
  kTimeout,    // connect or total timeout (retryable)
  kStall,      // no byte for `stall` after the first one (retryable)
  kNetwork,    // reset, closed early, send/recv error (retryable)
  kTooLarge,   // body exceeded max_response_bytes (final)
  kInvalid,    // bad URL, unsupported protocol, curl refused the options (final)
  kCancelled,  // the token was cancelled or the transport stopped
};

struct HttpResponse {
  TransportError error = TransportError::kNone;
  std::string error_message;  // curl's text, unscrubbed: callers scrub before reporting
  int status = 0;             // HTTP status when a response head arrived
  std::string body;
  std::map<std::string, std::string> headers;  // names lower-cased; the last value wins
  std::optional<Millis> retry_after;           // Retry-After / retry-after-ms, clamped >= 0
  Millis latency{0};
};

class CurlTransport {
 public:
  // Starts the thread. Fails when curl cannot be initialized.
  static Result<std::shared_ptr<CurlTransport>> Create();
  ~CurlTransport();
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  using DoneFn = std::function<void(HttpResponse)>;
  // Runs one HTTP exchange. `done` is called exactly once on the transport
  // thread. `token` may be null.
  void Start(HttpRequest request, std::shared_ptr<CancelToken> token, DoneFn done);

  // Runs `fn` on the transport thread after `delay`, or as soon as `token`
  // (may be null) is cancelled, whichever is first. Called exactly once.
  void After(Millis delay, std::shared_ptr<CancelToken> token, std::function<void()> fn);
  void Post(std::function<void()> fn) { After(Millis(0), nullptr, std::move(fn)); }

  // Wakes the loop (e.g. after a token was cancelled). Thread-safe, cheap.
  void Wakeup();

  // Transfers in flight right now (for tests and metrics).
  size_t active() const;

 private:
  struct Impl;
  explicit CurlTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace accelopt::llm
