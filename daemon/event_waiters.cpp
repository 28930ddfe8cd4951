#include "daemon/event_waiters.hpp"

#include <algorithm>

namespace accelopt::daemon {

namespace net = boost::asio;

EventWaiters::EventWaiters(store::EventLog* log, net::io_context* ioc, Env* env) : log_(log), ioc_(ioc), env_(env) {
  subscription_ = log_->Subscribe([this](const std::vector<store::EventRecord>& r) { OnCommitted(r); });
}

void EventWaiters::Fire(const std::shared_ptr<Waiter>& w) {
  if (w->fired) return;
  w->fired = true;
  if (w->timer) w->timer->Cancel();
  net::post(*ioc_, [fn = std::move(w->fn)] { fn(); });
}

void EventWaiters::OnCommitted(const std::vector<store::EventRecord>& records) {
  MutexLock lock(&mu_);
  if (waiters_.empty()) return;
  for (const auto& r : records) {
    auto it = waiters_.find(r.stream);
    if (it == waiters_.end()) continue;
    auto& list = it->second;
    for (auto& w : list) {
      if (r.version > w->after) Fire(w);
    }
    list.erase(std::remove_if(list.begin(), list.end(), [](const auto& w) { return w->fired; }), list.end());
    if (list.empty()) waiters_.erase(it);
  }
}

void EventWaiters::Wait(const std::string& stream, uint64_t after, int64_t deadline_nanos, std::function<void()> fn) {
  auto w = std::make_shared<Waiter>();
  w->after = after;
  w->fn = std::move(fn);
  w->timer = std::make_unique<EnvTimer>(ioc_->get_executor(), env_);
  w->timer->ExpiresAfter(std::chrono::nanoseconds(std::max<int64_t>(0, deadline_nanos - env_->MonotonicNanos())));
  MutexLock lock(&mu_);
  waiters_[stream].push_back(w);
  // An append between the caller's read and this registration would
  // otherwise go unnoticed until the deadline.
  if (log_->Head(stream) > after) {
    Fire(w);
  } else {
    w->timer->AsyncWait([this, w, stream](boost::system::error_code ec) {
      if (ec) return;  // cancelled: woken by an append
      MutexLock lock(&mu_);
      Fire(w);
      auto it = waiters_.find(stream);
      if (it == waiters_.end()) return;
      auto& list = it->second;
      list.erase(std::remove(list.begin(), list.end(), w), list.end());
      if (list.empty()) waiters_.erase(it);
    });
  }
  auto& list = waiters_[stream];
  list.erase(std::remove_if(list.begin(), list.end(), [](const auto& x) { return x->fired; }), list.end());
  if (list.empty()) waiters_.erase(stream);
}

size_t EventWaiters::Waiting() const {
  MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [s, list] : waiters_) n += list.size();
  return n;
}

}  // namespace accelopt::daemon
