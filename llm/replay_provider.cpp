#include "llm/replay_provider.hpp"

#include <set>

#include "base/log.hpp"
#include "base/mutex.hpp"
#include "llm/secrets.hpp"
#include "llm/worker_pool.hpp"

namespace accelopt::llm {
namespace {

class ReplayProvider : public Provider {
 public:
  ReplayProvider(ProviderConfig config, Env* env, ReplayLookup lookup)
      : config_(std::move(config)), env_(env), lookup_(std::move(lookup)), pool_(std::make_unique<WorkerPool>(1)) {}

  ~ReplayProvider() override {
    {
      MutexLock lock(&mu_);
      for (auto& t : live_) t->Cancel();
    }
    pool_.reset();
  }

  const std::string& name() const override { return config_.name; }
  ProviderKind kind() const override { return config_.kind; }

  CallHandle Call(LlmRequest request, LlmCallback done, const std::atomic<bool>* cancel) override
      ACCELOPT_EXCLUDES(mu_) {
    auto token = std::make_shared<CancelToken>(cancel);
    {
      MutexLock lock(&mu_);
      live_.insert(token);
    }
    const int64_t start = env_->MonotonicNanos();
    pool_->Submit([this, request = std::move(request), done = std::move(done), token, start] {
      LlmResult r = Lookup(request, *token);
      const auto latency = Millis((env_->MonotonicNanos() - start) / 1'000'000);
      LlmAttempt at;
      at.latency = latency;
      at.error = r.ok() ? "" : r.error().message;
      if (r.ok()) {
        r.response().attempts = {at};
        r.response().latency = latency;
      } else {
        r.error().attempts = {at};
      }
      {
        MutexLock lock(&mu_);
        live_.erase(token);
      }
      try {
        done(std::move(r));
      } catch (...) {
        LogError("llm callback threw");
      }
    });
    return CallHandle(token);
  }

 private:
  LlmError Error(LlmErrorKind kind, const std::string& message) const {
    LlmError e;
    e.kind = kind;
    e.retryable = false;
    e.message = ScrubSecrets("provider '" + config_.name + "': " + message);
    return e;
  }

  LlmResult Lookup(const LlmRequest& request, const CancelToken& token) const {
    if (token.cancelled()) return Error(LlmErrorKind::kCancelled, "cancelled");
    const std::string hash = RequestHash(request);
    std::optional<std::string> recorded;
    try {
      recorded = lookup_(hash);
    } catch (const std::exception& e) {
      return Error(LlmErrorKind::kReplayMiss, std::string("lookup failed: ") + e.what());
    }
    if (!recorded) return Error(LlmErrorKind::kReplayMiss, "no recorded response for request " + hash);
    auto j = ParseJson(*recorded);
    if (!j.ok()) return Error(LlmErrorKind::kMalformed, "recorded response for " + hash + " is not JSON");
    auto r = LlmResponse::FromJson(*j);
    if (!r.ok()) {
      return Error(LlmErrorKind::kMalformed, "recorded response for " + hash + ": " + r.status().message());
    }
    if (r->text.empty()) return Error(LlmErrorKind::kEmptyReply, "recorded response for " + hash + " has no text");
    r->cost_usd = 0;
    r->replayed = true;
    return std::move(*r);
  }

  ProviderConfig config_;
  Env* env_;
  ReplayLookup lookup_;
  Mutex mu_;
  std::set<std::shared_ptr<CancelToken>> live_ ACCELOPT_GUARDED_BY(mu_);  // calls not yet finished
  std::unique_ptr<WorkerPool> pool_;
};

}  // namespace

std::unique_ptr<Provider> MakeReplayProvider(const ProviderConfig& config, Env* env, ReplayLookup lookup) {
  return std::make_unique<ReplayProvider>(config, env, std::move(lookup));
}

}  // namespace accelopt::llm
