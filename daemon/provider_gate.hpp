// ProviderGate: which LLM providers are answering right now, shared by every
// campaign of the daemon.
//
// A provider that stops answering (connection refused, timeouts, 5xx, 429
// after the transport's own retries) is *unavailable*: that is not a reason
// to fail activities. The runtime reports such an outcome here and sends the
// call again through Enter(); while the provider is unavailable the calls
// wait in the gate, and one of them at a time goes out as the probe after a
// capped exponential backoff (initial, 2x, 4x ... cap). The first call that
// succeeds makes the provider available again and every waiting call goes.
// A provider is never probed by anything but a real waiting call: no extra
// request is made, and nothing is paid for twice (a failed attempt returned
// no reply).
//
// The gate holds no durable state: the runtime records each deferred call as
// an LlmCallWaiting event, so a restarted daemon knows since when a campaign
// waits (daemon/campaign_runner.hpp).
//
// Thread safety: every method is thread-safe. `go` callbacks are posted to
// the io_context (never run inside a gate method) and run at most once; a
// withdrawn ticket's `go` never runs.
#pragma once

#include "base/mutex.hpp"
#include "base/boost_prelude.hpp"

#include <boost/asio.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "daemon/env_timer.hpp"

namespace accelopt::daemon {

class ProviderGate {
 public:
  struct Options {
    std::chrono::milliseconds initial_backoff{1000};  // before the first probe
    std::chrono::milliseconds max_backoff{30000};     // the probe interval's cap
  };
  struct ProviderState {
    bool available = true;
    int64_t since_us = 0;    // when it became unavailable (Env::NowMicros)
    std::string last_error;  // scrubbed, as reported
    int waiting = 0;         // calls held in the gate
    int failures = 0;        // consecutive unavailable outcomes
  };

  ProviderGate(boost::asio::io_context& ioc, Env* env, Options options);
  ProviderGate(boost::asio::io_context& ioc, Env* env) : ProviderGate(ioc, env, Options{}) {}
  ~ProviderGate();
  ProviderGate(const ProviderGate&) = delete;
  ProviderGate& operator=(const ProviderGate&) = delete;

  // Posts `go` when a call to `provider` may be sent: at once when it is
  // available, else when it is this call's turn to probe or the provider is
  // back. Returns a ticket (> 0) for Report and Withdraw.
  uint64_t Enter(const std::string& provider, std::function<void()> go);
  // The call of `ticket` is no longer wanted (cancelled, campaign ended). A
  // probe that is withdrawn before it reported lets the next waiting call
  // probe. Unknown or finished tickets are ignored. True when the call was
  // still waiting: its `go` will never run.
  bool Withdraw(uint64_t ticket);
  // The outcome of a call that went out with `ticket`: answered (any reply,
  // even an error that is the request's fault) or unavailable.
  void Answered(uint64_t ticket);
  void Unavailable(uint64_t ticket, const std::string& error);

  ProviderState State(const std::string& provider) const;
  // Every provider the gate has seen, by name.
  std::map<std::string, ProviderState> States() const;

 private:
  struct Waiter {
    uint64_t ticket;
    std::function<void()> go;
  };
  struct Provider {
    ProviderState state;
    std::deque<Waiter> queue;
    uint64_t probe = 0;  // the ticket out as the probe, 0 if none
    std::chrono::milliseconds backoff{0};
    std::unique_ptr<EnvTimer> timer;  // the backoff, on env_'s clock
    bool timer_armed = false;
  };
  // Forgets a sent ticket; its provider, "" if unknown.
  std::string TakeSent(uint64_t ticket) ACCELOPT_REQUIRES(mu_);
  void MaybeProbe(const std::string& name, Provider& p) ACCELOPT_REQUIRES(mu_);
  void Release(Provider& p) ACCELOPT_REQUIRES(mu_);
  void Fire(const std::string& name);

  boost::asio::io_context& ioc_;
  Env* env_;
  Options options_;
  mutable Mutex mu_;
  uint64_t next_ticket_ ACCELOPT_GUARDED_BY(mu_) = 1;
  std::map<std::string, Provider> providers_ ACCELOPT_GUARDED_BY(mu_);
  std::map<uint64_t, std::string> tickets_ ACCELOPT_GUARDED_BY(mu_);  // live tickets (waiting or sent) -> provider
  std::set<uint64_t> out_ ACCELOPT_GUARDED_BY(mu_);                   // tickets sent and not yet reported
  std::shared_ptr<bool> alive_;
};

}  // namespace accelopt::daemon
