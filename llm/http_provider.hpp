// A Provider over HTTP: a codec (wire format + credentials) on the shared
// CurlTransport, with a concurrency limit, retries and pricing.
//
// Per call: wait for one of max_concurrency slots (FIFO), then attempts until
// success, a final error, or retry.max_attempts. Retried: 408, 429, 5xx,
// connect errors, resets, timeouts and stalls, after a capped full-jitter
// backoff that honours Retry-After (llm/retry.hpp). The slot is held during
// backoffs, so a rate-limited provider does not take on new work. Final at
// once: other 4xx, malformed/empty/truncated replies, too-large replies,
// cancellation. Every attempt is in the result's `attempts`.
//
// Threading: Call() is thread-safe; everything else runs on the transport
// thread, where the callback is invoked. See llm/client.hpp for the contract.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "base/env.hpp"
#include "llm/provider.hpp"
#include "llm/codec.hpp"
#include "llm/transport.hpp"

namespace accelopt::llm {

class HttpProvider : public Provider {
 public:
  HttpProvider(ProviderConfig config, std::unique_ptr<HttpCodec> codec, std::shared_ptr<CurlTransport> transport,
               Env* env);
  ~HttpProvider() override;

  const std::string& name() const override { return name_; }
  ProviderKind kind() const override { return kind_; }
  CallHandle Call(LlmRequest request, LlmCallback done, const std::atomic<bool>* cancel = nullptr) override;

  // Calls holding a slot (in flight or backing off) / waiting for one.
  size_t active() const;
  size_t queued() const;

 private:
  struct CallState;
  struct Shared;
  std::string name_;
  ProviderKind kind_;
  std::shared_ptr<CurlTransport> transport_;  // released after all calls are delivered
  std::shared_ptr<Shared> shared_;
};

// A hint for an HTTP error that waiting cannot heal (401, 403, 404, 400,
// 422): what to check, with the URL's path for a 404. "" for other statuses.
std::string FixHint(int status, const std::string& url);

// An error message about the prompt not fitting the context window
// (llama.cpp: "the request exceeds the available context size"; OpenAI,
// vLLM, llama-cpp-python: "maximum context length is ..."): kContextOverflow.
bool IsContextOverflowMessage(const std::string& message);
// An error message of a chat template that has no system role ("System role
// not supported", "Conversation roles must alternate user/assistant"): the
// call is sent again at once with the system prompt folded into the user
// message, and so are the model's later calls.
bool IsSystemRoleRejection(const std::string& message);

}  // namespace accelopt::llm
