#include "daemon/provider_gate.hpp"

#include <algorithm>

#include "base/log.hpp"

namespace accelopt::daemon {

namespace net = boost::asio;

ProviderGate::ProviderGate(net::io_context& ioc, Env* env, Options options)
    : ioc_(ioc), env_(env), options_(options), alive_(std::make_shared<bool>(true)) {}

ProviderGate::~ProviderGate() {
  MutexLock lock(&mu_);
  *alive_ = false;
  for (auto& [name, p] : providers_) {
    if (p.timer) p.timer->Cancel();
  }
}

uint64_t ProviderGate::Enter(const std::string& provider, std::function<void()> go) {
  MutexLock lock(&mu_);
  const uint64_t ticket = next_ticket_++;
  Provider& p = providers_[provider];
  tickets_[ticket] = provider;
  if (p.state.available) {
    out_.insert(ticket);
    net::post(ioc_, std::move(go));
    return ticket;
  }
  p.queue.push_back(Waiter{ticket, std::move(go)});
  p.state.waiting = static_cast<int>(p.queue.size());
  MaybeProbe(provider, p);
  return ticket;
}

bool ProviderGate::Withdraw(uint64_t ticket) {
  MutexLock lock(&mu_);
  auto t = tickets_.find(ticket);
  if (t == tickets_.end()) return false;
  const std::string name = t->second;
  tickets_.erase(t);
  const bool waited = out_.erase(ticket) == 0;
  Provider& p = providers_[name];
  p.queue.erase(std::remove_if(p.queue.begin(), p.queue.end(), [&](const Waiter& w) { return w.ticket == ticket; }),
                p.queue.end());
  p.state.waiting = static_cast<int>(p.queue.size());
  if (p.probe == ticket) p.probe = 0;
  MaybeProbe(name, p);
  return waited;
}

std::string ProviderGate::TakeSent(uint64_t ticket) {
  auto t = tickets_.find(ticket);
  if (t == tickets_.end()) return "";
  std::string name = t->second;
  tickets_.erase(t);
  out_.erase(ticket);
  return name;
}

void ProviderGate::Answered(uint64_t ticket) {
  MutexLock lock(&mu_);
  const std::string name = TakeSent(ticket);
  if (name.empty()) return;
  Provider& p = providers_[name];
  if (p.probe == ticket) p.probe = 0;
  if (p.state.available) return;
  const double waited_s = static_cast<double>(env_->NowMicros() - p.state.since_us) / 1e6;
  LogInfo("provider '" + name + "' is answering again after " + std::to_string(static_cast<int64_t>(waited_s)) +
          " s; releasing " + std::to_string(p.queue.size()) + " waiting calls");
  p.state.available = true;
  p.state.failures = 0;
  p.backoff = std::chrono::milliseconds(0);
  if (p.timer) p.timer->Cancel();
  p.timer_armed = false;
  Release(p);
}

void ProviderGate::Unavailable(uint64_t ticket, const std::string& error) {
  MutexLock lock(&mu_);
  const std::string name = TakeSent(ticket);
  if (name.empty()) return;
  Provider& p = providers_[name];
  if (p.state.available) {
    p.state.available = false;
    p.state.since_us = env_->NowMicros();
    p.state.failures = 0;
    p.backoff = options_.initial_backoff;
    LogWarning("provider '" + name + "' is unavailable (" + error + "); its calls wait and it is probed");
  } else if (p.probe == ticket) {
    p.backoff = std::min(options_.max_backoff, p.backoff * 2);
  }
  if (p.probe == ticket) p.probe = 0;
  ++p.state.failures;
  p.state.last_error = error;
  MaybeProbe(name, p);
}

void ProviderGate::MaybeProbe(const std::string& name, Provider& p) {
  if (p.state.available || p.probe != 0 || p.timer_armed || p.queue.empty()) return;
  if (!p.timer) p.timer = std::make_unique<EnvTimer>(ioc_.get_executor(), env_);
  p.timer_armed = true;
  p.timer->ExpiresAfter(std::max(p.backoff, std::chrono::milliseconds(1)));
  std::weak_ptr<bool> alive = alive_;
  p.timer->AsyncWait([this, alive, name](boost::system::error_code ec) {
    if (ec) return;
    auto a = alive.lock();
    if (!a || !*a) return;
    Fire(name);
  });
}

void ProviderGate::Fire(const std::string& name) {
  MutexLock lock(&mu_);
  Provider& p = providers_[name];
  p.timer_armed = false;
  if (p.state.available || p.probe != 0 || p.queue.empty()) return;
  Waiter w = std::move(p.queue.front());
  p.queue.pop_front();
  p.state.waiting = static_cast<int>(p.queue.size());
  p.probe = w.ticket;
  out_.insert(w.ticket);
  net::post(ioc_, std::move(w.go));
}

void ProviderGate::Release(Provider& p) {
  while (!p.queue.empty()) {
    Waiter w = std::move(p.queue.front());
    p.queue.pop_front();
    out_.insert(w.ticket);
    net::post(ioc_, std::move(w.go));
  }
  p.state.waiting = 0;
}

ProviderGate::ProviderState ProviderGate::State(const std::string& provider) const {
  MutexLock lock(&mu_);
  auto it = providers_.find(provider);
  return it == providers_.end() ? ProviderState{} : it->second.state;
}

std::map<std::string, ProviderGate::ProviderState> ProviderGate::States() const {
  MutexLock lock(&mu_);
  std::map<std::string, ProviderState> out;
  for (const auto& [name, p] : providers_) out[name] = p.state;
  return out;
}

}  // namespace accelopt::daemon
