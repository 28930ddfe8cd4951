// EventWaiters: wakes the API's long-polls when their stream gets new events,
// through a store subscription, instead of polling the log on a timer.
//
// Wait(stream, after, deadline, fn) runs `fn` once, on the io_context, as
// soon as the stream's head is past `after` (at once if it already is) or
// when the deadline (on the Env's monotonic clock, daemon/env_timer.hpp)
// passes, whichever comes first; `fn` then reads the log
// itself. The subscription callback (the log's writer thread) only looks the
// stream up and posts; it never reads the log.
//
// Thread safety: all methods are thread-safe. Destroy after the io_context
// has stopped running handlers that may call Wait.
#pragma once

#include "base/mutex.hpp"
#include "base/boost_prelude.hpp"

#include <boost/asio.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "daemon/env_timer.hpp"
#include "store/event_log.hpp"

namespace accelopt::daemon {

class EventWaiters {
 public:
  // `env` (the deadlines' clock) must outlive this.
  EventWaiters(store::EventLog* log, boost::asio::io_context* ioc, Env* env);

  void Wait(const std::string& stream, uint64_t after, int64_t deadline_nanos, std::function<void()> fn);

  size_t Waiting() const;  // waiters not yet woken (for tests and metrics)

 private:
  struct Waiter {
    uint64_t after = 0;
    std::function<void()> fn;
    std::unique_ptr<EnvTimer> timer;
    bool fired = false;  // guarded by mu_
  };
  // Wakes `w` once (REQUIRES mu_).
  void Fire(const std::shared_ptr<Waiter>& w);
  void OnCommitted(const std::vector<store::EventRecord>& records);

  store::EventLog* log_;
  boost::asio::io_context* ioc_;
  Env* env_;
  mutable Mutex mu_;
  std::map<std::string, std::vector<std::shared_ptr<Waiter>>> waiters_ ACCELOPT_GUARDED_BY(mu_);  // by stream
  store::Subscription subscription_;  // last: reset first on destruction
};

}  // namespace accelopt::daemon
