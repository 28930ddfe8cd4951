#include "daemon/env_timer.hpp"

#include <algorithm>
#include <boost/asio/error.hpp>
#include <limits>

#include "base/mutex.hpp"

namespace accelopt::daemon {

namespace net = boost::asio;

struct EnvTimer::State {
  State(net::any_io_executor executor, Env* e) : timer(std::move(executor)), env(e) {}
  Mutex mu;  // guards everything below (env: set at construction, read-only)
  net::steady_timer timer ACCELOPT_GUARDED_BY(mu);
  Env* const env;
  bool wall ACCELOPT_GUARDED_BY(mu) = false;        // the deadline is on NowMicros (else MonotonicNanos)
  int64_t deadline ACCELOPT_GUARDED_BY(mu) = 0;     // micros (wall) or nanos (monotonic)
  uint64_t generation ACCELOPT_GUARDED_BY(mu) = 0;  // bumped by every cancel; a wait of an older one is over

  // Nanoseconds until the deadline on the Env's clock.
  int64_t Remaining() const ACCELOPT_REQUIRES(mu) {
    if (!wall) return deadline - env->MonotonicNanos();
    const int64_t us = deadline - env->NowMicros();
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 1000;
    return std::clamp<int64_t>(us, -kMax, kMax) * 1000;
  }
  // Sleeps for the time left, at most one recheck interval.
  void Arm(uint64_t gen, Handler handler, const std::shared_ptr<State>& self) ACCELOPT_REQUIRES(mu) {
    const int64_t left = std::max<int64_t>(0, Remaining());
    const auto slice = std::min<std::chrono::nanoseconds>(std::chrono::nanoseconds(left), env->ClockRecheckInterval());
    timer.expires_after(slice);
    timer.async_wait([weak = std::weak_ptr<State>(self), gen, handler = std::move(handler)](
                         boost::system::error_code ec) mutable { Step(weak.lock(), gen, std::move(handler), ec); });
  }
  void Cancel() ACCELOPT_REQUIRES(mu) {
    ++generation;
    timer.cancel();
  }
};

EnvTimer::EnvTimer(net::any_io_executor executor, Env* env) : s_(std::make_shared<State>(std::move(executor), env)) {}

EnvTimer::~EnvTimer() { Cancel(); }

void EnvTimer::ExpiresAfter(std::chrono::nanoseconds d) {
  MutexLock lock(&s_->mu);
  s_->Cancel();
  s_->wall = false;
  const int64_t now = s_->env->MonotonicNanos();
  const int64_t n = d.count();
  s_->deadline = n > std::numeric_limits<int64_t>::max() - now ? std::numeric_limits<int64_t>::max() : now + n;
}

void EnvTimer::ExpiresAtWallMicros(int64_t at_micros) {
  MutexLock lock(&s_->mu);
  s_->Cancel();
  s_->wall = true;
  s_->deadline = at_micros;
}

void EnvTimer::AsyncWait(Handler handler) {
  MutexLock lock(&s_->mu);
  s_->Cancel();  // one wait at a time
  s_->Arm(s_->generation, std::move(handler), s_);
}

void EnvTimer::Cancel() {
  MutexLock lock(&s_->mu);
  s_->Cancel();
}

void EnvTimer::Step(const std::shared_ptr<State>& s, uint64_t generation, Handler handler,
                    boost::system::error_code ec) {
  if (!s) {  // the EnvTimer is gone
    handler(net::error::operation_aborted);
    return;
  }
  MutexLock lock(&s->mu);
  if (ec || s->generation != generation) {
    lock.Unlock();
    handler(ec ? ec : net::error::operation_aborted);
    return;
  }
  if (s->Remaining() > 0) {
    s->Arm(generation, std::move(handler), s);
    return;
  }
  lock.Unlock();
  handler({});
}

}  // namespace accelopt::daemon
