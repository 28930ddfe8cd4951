#include "llm/command_provider.hpp"
#include "base/text.hpp"

#include <condition_variable>
#include <set>
#include <thread>

#include "base/log.hpp"
#include "base/mutex.hpp"
#include "llm/codec.hpp"
#include "llm/pricing.hpp"
#include "llm/retry.hpp"
#include "llm/secrets.hpp"
#include "llm/worker_pool.hpp"

namespace accelopt::llm {
namespace {

using namespace std::chrono_literals;

std::string LastLine(const std::string& text) {
  std::string t = Trim(text);
  auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

class CommandProvider : public Provider {
 public:
  CommandProvider(ProviderConfig config, Env* env)
      : config_(std::move(config)), env_(env), pool_(std::make_unique<WorkerPool>(config_.max_concurrency)) {
    watcher_ = std::thread([this] { Watch(); });
  }

  ~CommandProvider() override {
    {
      MutexLock lock(&mu_);
      stopping_ = true;
      for (auto& t : live_) t->Cancel();
    }
    cv_.notify_all();
    pool_.reset();  // runs what is queued (all cancelled now), joins
    watcher_.join();
  }

  const std::string& name() const override { return config_.name; }
  ProviderKind kind() const override { return config_.kind; }

  CallHandle Call(LlmRequest request, LlmCallback done, const std::atomic<bool>* cancel) override
      ACCELOPT_EXCLUDES(mu_) {
    auto token = std::make_shared<CancelToken>(cancel);
    {
      MutexLock lock(&mu_);
      live_.insert(token);
      if (stopping_) token->Cancel();
    }
    cv_.notify_all();
    const int64_t start = env_->MonotonicNanos();
    pool_->Submit([this, request = std::move(request), done = std::move(done), token, start]() mutable {
      LlmResult result = Run(request, *token, start);
      {
        MutexLock lock(&mu_);
        live_.erase(token);
      }
      try {
        done(std::move(result));
      } catch (...) {
        LogError("llm callback threw");
      }
    });
    return CallHandle(token);
  }

 private:
  LlmError Error(LlmErrorKind kind, bool retryable, const std::string& message) const {
    LlmError e;
    e.kind = kind;
    e.retryable = retryable;
    e.message = ScrubSecrets("provider '" + config_.name + "': " + message);
    return e;
  }

  LlmResult Run(const LlmRequest& request, CancelToken& token, int64_t start) {
    std::vector<LlmAttempt> attempts;
    Millis backoff{0};
    auto finish = [&](LlmResult r) {
      const auto latency = Millis((env_->MonotonicNanos() - start) / 1'000'000);
      if (r.ok()) {
        r.response().attempts = attempts;
        r.response().latency = latency;
        ApplyUsageAndPrice(config_, request, &r.response());
      } else {
        r.error().attempts = attempts;
        if (r.error().partial) ApplyUsageAndPrice(config_, request, &*r.error().partial);
      }
      return r;
    };
    for (int attempt = 1;; ++attempt) {
      if (token.cancelled()) return finish(Error(LlmErrorKind::kCancelled, false, "cancelled"));
      ProcessSpec spec;
      spec.argv = config_.argv;
      spec.env_set = config_.env;
      json in = ToJson(request);
      in["request_hash"] = RequestHash(request);
      spec.stdin_data = Dump(in);
      spec.timeout = config_.timeouts.total;
      spec.max_output_bytes = config_.max_response_bytes;
      spec.cancel = token.flag();
      const int64_t t0 = env_->MonotonicNanos();
      auto pr = env_->RunProcess(spec);
      LlmAttempt at;
      at.backoff = backoff;
      at.latency = Millis((env_->MonotonicNanos() - t0) / 1'000'000);
      LlmResult r = Interpret(pr);
      at.error = r.ok() ? "" : r.error().message;
      attempts.push_back(at);
      if (r.ok() || !r.error().retryable || attempt >= config_.retry.max_attempts || token.cancelled()) {
        return finish(std::move(r));
      }
      backoff = FullJitterBackoff(config_.retry, attempt, env_->RandomU64());
      const int64_t until = env_->MonotonicNanos() + backoff.count() * 1'000'000;
      while (env_->MonotonicNanos() < until && !token.cancelled()) env_->SleepFor(10ms);
    }
  }

  LlmResult Interpret(const Result<ProcessResult>& pr) const {
    if (!pr.ok()) return Error(LlmErrorKind::kCommandFailed, false, pr.status().message());
    const ProcessResult& p = *pr;
    switch (p.outcome) {
      case ProcessResult::Outcome::kCancelled:
        return Error(LlmErrorKind::kCancelled, false, "cancelled");
      case ProcessResult::Outcome::kTimedOut:
        return Error(LlmErrorKind::kTimeout, true, "command " + p.Describe());
      case ProcessResult::Outcome::kSignaled:
        return Error(LlmErrorKind::kCommandFailed, true, "command " + p.Describe() + ": " + LastLine(p.stderr_data));
      case ProcessResult::Outcome::kExited:
        break;
    }
    if (p.exit_code != 0) {
      const bool not_runnable = p.exit_code == 126 || p.exit_code == 127;
      return Error(LlmErrorKind::kCommandFailed, !not_runnable,
                   "command " + p.Describe() + ": " + LastLine(p.stderr_data));
    }
    if (p.stdout_truncated) {
      return Error(LlmErrorKind::kTooLarge, false,
                   "command output exceeds " + std::to_string(config_.max_response_bytes) + " bytes");
    }
    LlmResponse out;
    if (config_.output == "text") {
      out.text = Trim(p.stdout_data);
      out.finish_reason = "stop";
    } else {
      auto j = ParseJson(p.stdout_data);
      if (!j.ok() || !j->is_object())
        return Error(LlmErrorKind::kMalformed, false, "command output is not a JSON object");
      auto get_s = [&](const char* k) {
        auto it = j->find(k);
        return it != j->end() && it->is_string() ? it->get<std::string>() : std::string();
      };
      auto get_i = [&](const char* k) -> int64_t { return codec_util::Int(codec_util::Find(*j, k)); };
      auto text = j->find("text");
      if (text == j->end() || !text->is_string()) {
        return Error(LlmErrorKind::kMalformed, false, "command output has no string field 'text'");
      }
      out.text = text->get<std::string>();
      out.reasoning = get_s("reasoning");
      out.finish_reason = get_s("finish_reason");
      if (out.finish_reason.empty()) out.finish_reason = "stop";
      out.input_tokens = get_i("input_tokens");
      out.output_tokens = get_i("output_tokens");
      out.cached_tokens = get_i("cached_tokens");
    }
    if (out.finish_reason == "length") {
      LlmError e = Error(LlmErrorKind::kTruncated, false, "reply cut off at max_tokens");
      e.partial = out;
      return e;
    }
    if (Trim(out.text).empty()) {
      LlmError e = Error(LlmErrorKind::kEmptyReply, false, "command printed no reply");
      e.partial = out;
      return e;
    }
    return out;
  }

  // Forwards external cancel flags of running calls to their internal flag,
  // which RunProcess watches.
  void Watch() ACCELOPT_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    while (!stopping_) {
      bool any_external = false;
      for (auto& t : live_) {
        if (t->has_external()) {
          any_external = true;
          t->SetFlagFromExternal();
        }
      }
      if (any_external) {
        lock.WaitFor(&cv_, 50ms);
      } else {
        lock.Wait(&cv_);
      }
    }
  }

  ProviderConfig config_;
  Env* env_;
  Mutex mu_;
  std::condition_variable cv_;  // wakes Watch(): on stopping_ and on each new call
  bool stopping_ ACCELOPT_GUARDED_BY(mu_) = false;
  std::set<std::shared_ptr<CancelToken>> live_ ACCELOPT_GUARDED_BY(mu_);  // calls not yet finished
  std::unique_ptr<WorkerPool> pool_;
  std::thread watcher_;
};

}  // namespace

std::unique_ptr<Provider> MakeCommandProvider(const ProviderConfig& config, Env* env) {
  return std::make_unique<CommandProvider>(config, env);
}

}  // namespace accelopt::llm
