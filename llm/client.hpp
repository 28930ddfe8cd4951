// The LLM client: a ProviderSet of Providers (llm/provider.hpp, the one
// asynchronous interface), built from the "providers" config section (see
// llm/config.hpp).
//
//   ACCELOPT_ASSIGN_OR_RETURN(auto providers, ProviderSet::Create(config["llm"], {}));
//   providers->Call(request, [](LlmResult r) { post to io_context ... });
//
// Callback contract (all providers):
//   - called exactly once per Call(), never inside Call() itself;
//   - HTTP providers (openai, anthropic, bedrock) call it on the ProviderSet's
//     transport thread (the one thread running curl_multi_poll); command
//     calls it on one of its worker threads; replay on its own worker thread;
//     errors found before dispatch (unknown provider) on the transport thread;
//   - it must not block: the daemon posts the result to its io_context;
//   - it may call Call() again.
//
// Cancellation: CallHandle::Cancel(), or an external std::atomic<bool> given
// to Call() (polled every ~50 ms while the call is running or backing off;
// a call still waiting for a concurrency slot notices it when it would start).
// A cancelled call completes with kCancelled (unless it already completed)
// and its transfer or child process is stopped.
//
// Destruction: ~ProviderSet (and ~Provider) cancels every outstanding call
// and returns after all their callbacks have run.
// REQUIRES: not destroyed from one of its own callbacks.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "llm/config.hpp"
#include "llm/provider.hpp"
#include "llm/types.hpp"

namespace accelopt::llm {

class CurlTransport;

struct ProviderSetOptions {
  Env* env = nullptr;          // clock, randomness, files; null → Env::Default()
  ReplayLookup replay_lookup;  // required when a provider has kind "replay"
};

class ProviderSet {
 public:
  // Parses the section (strictly; see ParseProvidersConfig), loads every
  // provider's secrets, and starts the transport thread. Errors name the
  // provider and field; they never contain a secret.
  static Result<std::unique_ptr<ProviderSet>> Create(const json& section, ProviderSetOptions options);
  ~ProviderSet();

  // nullptr when there is no provider of that name.
  Provider* Get(const std::string& name) const;
  std::vector<std::string> names() const;

  // Routes by request.provider; an unknown name completes with kConfig.
  CallHandle Call(LlmRequest request, LlmCallback done, const std::atomic<bool>* cancel = nullptr);
  LlmResult CallBlocking(LlmRequest request, const std::atomic<bool>* cancel = nullptr);

 private:
  ProviderSet() = default;
  std::shared_ptr<CurlTransport> transport_;
  std::map<std::string, std::unique_ptr<Provider>> providers_;
};

// Builds one provider. `transport` is required for openai/anthropic/bedrock
// (shared by all of them); `replay_lookup` for replay.
Result<std::unique_ptr<Provider>> MakeProvider(const ProviderConfig& config, Env* env,
                                               std::shared_ptr<CurlTransport> transport, ReplayLookup replay_lookup);

}  // namespace accelopt::llm
