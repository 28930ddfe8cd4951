// EnvTimer: an asio timer whose deadline is on an Env's clocks
// (base/env.hpp) instead of std::chrono::steady_clock, so that a daemon
// running on a FakeClockEnv has its long-poll deadlines, backoffs, feed
// heartbeats and campaign deadlines move with the fake clock.
//
// The deadline is either on the monotonic clock (ExpiresAfter: durations)
// or on the wall clock (ExpiresAtWallMicros: a recorded time such as a
// campaign's deadline). A wait sleeps on a real steady_timer for the time
// left, at most Env::ClockRecheckInterval() at a time, and reads the Env's
// clock again when it wakes: with the real clocks (interval: forever) that
// is one sleep; with a fake clock the timer notices a move within that
// interval of real time.
//
// The handler runs on the executor given at construction, once: with no
// error when the deadline is reached, with operation_aborted when the wait
// was cancelled (Cancel, a new expiry, or destruction). As with asio, a
// handler whose deadline was reached just before a Cancel may still run
// with no error; callers that care check their own state.
//
// Thread safety: thread-safe (unlike asio's timers: a mutex serializes the
// calls on the inner timer, so a Cancel from another thread is safe). The
// handler is never called with that mutex held. The Env must outlive the
// timer's pending waits.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "base/env.hpp"

namespace accelopt::daemon {

class EnvTimer {
 public:
  using Handler = std::function<void(boost::system::error_code)>;

  EnvTimer(boost::asio::any_io_executor executor, Env* env);
  ~EnvTimer();  // cancels a pending wait
  EnvTimer(const EnvTimer&) = delete;
  EnvTimer& operator=(const EnvTimer&) = delete;

  // Sets the deadline to now + d on env->MonotonicNanos(); cancels a
  // pending wait.
  void ExpiresAfter(std::chrono::nanoseconds d);
  // Sets the deadline to `at_micros` on env->NowMicros(); cancels a
  // pending wait.
  void ExpiresAtWallMicros(int64_t at_micros);
  // Starts a wait for the current deadline (at once when it has passed).
  // One wait at a time: a second AsyncWait cancels the first.
  void AsyncWait(Handler handler);
  // Cancels a pending wait (its handler gets operation_aborted).
  void Cancel();

 private:
  struct State;
  // A wait's completion: done, or another slice of sleep.
  static void Step(const std::shared_ptr<State>& s, uint64_t generation, Handler handler, boost::system::error_code ec);
  std::shared_ptr<State> s_;  // shared with the pending wait's completion
};

}  // namespace accelopt::daemon
