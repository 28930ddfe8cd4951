#include "llm/http_provider.hpp"

#include <set>

#include "base/log.hpp"
#include "base/text.hpp"
#include "base/mutex.hpp"
#include "llm/pricing.hpp"
#include "llm/retry.hpp"

namespace accelopt::llm {

struct HttpProvider::CallState {
  LlmRequest request;
  LlmCallback done;
  std::shared_ptr<CancelToken> token;
  std::vector<LlmAttempt> attempts;
  int64_t start_nanos = 0;
  Millis next_backoff{0};
  std::string url;             // of the last attempt (no secrets: keys travel in headers)
  bool holds_slot = false;     // under Shared::mu
  bool folded_system = false;  // the system prompt was moved into the user message
  bool delivered = false;      // transport thread only
};

namespace {

// "/v1/chat/completions" of "http://host:8000/v1/chat/completions?x=y".
std::string UrlPath(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : url.find('/', start + 3);
  if (start == std::string::npos) return "/";
  return url.substr(start, url.find('?', start) - start);
}

}  // namespace

bool IsContextOverflowMessage(const std::string& message) {
  const std::string m = Lower(message);
  for (const char* p : {"context size", "context window", "context length", "context_length", "exceed_context",
                        "prompt is too long", "too many tokens"}) {
    if (m.find(p) != std::string::npos) return true;
  }
  return false;
}

bool IsSystemRoleRejection(const std::string& message) {
  const std::string m = Lower(message);
  if (m.find("must alternate") != std::string::npos) return true;
  if (m.find("system") == std::string::npos) return false;
  for (const char* p : {"not supported", "unsupported", "not allowed", "only user", "invalid role"}) {
    if (m.find(p) != std::string::npos) return true;
  }
  return false;
}

// What to check for an error that waiting cannot heal ("" for the others).
std::string FixHint(int status, const std::string& url) {
  if (status == 404) return " (check base_url and the model: the server answered 404 for " + UrlPath(url) + ")";
  if (status == 401) return " (check the API key: api_key_env / api_key_file)";
  if (status == 403) return " (check the API key's permissions for this model)";
  if (status == 400 || status == 422) {
    return " (the server refused the request as invalid: check the model id, max_tokens and reasoning settings)";
  }
  return "";
}

struct HttpProvider::Shared : std::enable_shared_from_this<HttpProvider::Shared> {
  ProviderConfig config;
  std::unique_ptr<HttpCodec> codec;
  // Not owned: HttpProvider::transport_ keeps it alive until every call is
  // delivered. Shared itself may be released last on the transport thread,
  // which must therefore never drop the last reference to the transport.
  // Cleared under mu by ~HttpProvider, which the wake hook relies on.
  CurlTransport* transport = nullptr;
  Env* env;

  mutable Mutex mu;
  std::condition_variable cv;  // signalled when live shrinks
  bool stopping ACCELOPT_GUARDED_BY(mu) = false;
  size_t active ACCELOPT_GUARDED_BY(mu) = 0;                             // slots in use
  std::deque<std::shared_ptr<CallState>> queue ACCELOPT_GUARDED_BY(mu);  // waiting for a slot
  std::set<std::shared_ptr<CallState>> live ACCELOPT_GUARDED_BY(mu);     // not yet delivered
  std::set<std::string> fold_system ACCELOPT_GUARDED_BY(mu);             // models whose template has no system role

  static void FoldSystem(LlmRequest* r) {
    r->user = r->system + "\n\n" + r->user;
    r->system.clear();
  }

  Millis Elapsed(const CallState& s) const {
    return std::chrono::duration_cast<Millis>(std::chrono::nanoseconds(env->MonotonicNanos() - s.start_nanos));
  }

  LlmError MakeError(LlmErrorKind kind, bool retryable, int status, const std::string& message) const {
    LlmError e;
    e.kind = kind;
    e.retryable = retryable;
    e.http_status = status;
    e.message = ScrubSecrets("provider '" + config.name + "': " + message);
    return e;
  }

  void Finish(const std::shared_ptr<CallState>& s, LlmResult result) ACCELOPT_EXCLUDES(mu) {
    if (s->delivered) return;
    s->delivered = true;
    const Millis latency = Elapsed(*s);
    if (result.ok()) {
      result.response().latency = latency;
      result.response().attempts = s->attempts;
      ApplyUsageAndPrice(config, s->request, &result.response());
    } else {
      result.error().attempts = s->attempts;
      if (result.error().partial) {
        result.error().partial->latency = latency;
        result.error().partial->attempts = s->attempts;
        ApplyUsageAndPrice(config, s->request, &*result.error().partial);
      }
    }
    auto done = std::move(s->done);
    try {
      done(std::move(result));
    } catch (const std::exception& ex) {
      LogError(std::string("llm callback threw: ") + ex.what());
    } catch (...) {
      LogError("llm callback threw");
    }
    std::shared_ptr<CallState> next;
    {
      MutexLock lock(&mu);
      live.erase(s);
      if (s->holds_slot) {
        s->holds_slot = false;
        --active;
        if (!queue.empty() && !stopping) {
          next = std::move(queue.front());
          queue.pop_front();
          next->holds_slot = true;
          ++active;
        }
      }
    }
    cv.notify_all();
    if (next) {
      auto self = shared_from_this();
      transport->Post([self, next] { self->StartAttempt(next); });
    }
  }

  void StartAttempt(const std::shared_ptr<CallState>& s) ACCELOPT_EXCLUDES(mu) {
    if (s->delivered) return;
    if (s->token->cancelled()) {
      Finish(s, MakeError(LlmErrorKind::kCancelled, false, 0, "cancelled"));
      return;
    }
    if (!s->folded_system && !s->request.system.empty()) {
      bool fold = false;
      {
        MutexLock lock(&mu);
        fold = fold_system.count(s->request.model) > 0;
      }
      if (fold) {
        FoldSystem(&s->request);
        s->folded_system = true;
      }
    }
    auto http = codec->Build(s->request);
    if (!http.ok()) {
      Finish(s, MakeError(LlmErrorKind::kInvalidRequest, false, 0, http.status().message()));
      return;
    }
    s->url = http->url;
    auto self = shared_from_this();
    transport->Start(std::move(*http), s->token, [self, s](HttpResponse r) { self->OnResponse(s, std::move(r)); });
  }

  void OnResponse(const std::shared_ptr<CallState>& s, HttpResponse r) ACCELOPT_EXCLUDES(mu) {
    LlmAttempt at;
    at.status = r.status;
    at.latency = r.latency;
    at.backoff = s->next_backoff;

    std::optional<LlmError> error;
    bool retry = false;
    switch (r.error) {
      case TransportError::kNone:
        break;
      case TransportError::kCancelled:
        error = MakeError(LlmErrorKind::kCancelled, false, r.status, "cancelled");
        break;
      case TransportError::kConnect:
      case TransportError::kNetwork:
        error = MakeError(LlmErrorKind::kNetwork, true, r.status, r.error_message);
        retry = true;
        break;
      case TransportError::kTimeout:
      case TransportError::kStall:
        error = MakeError(LlmErrorKind::kTimeout, true, r.status, r.error_message);
        retry = true;
        break;
      case TransportError::kTooLarge:
        error = MakeError(LlmErrorKind::kTooLarge, false, r.status, r.error_message);
        break;
      case TransportError::kInvalid:
        error = MakeError(LlmErrorKind::kConfig, false, 0, r.error_message);
        break;
    }
    std::optional<LlmResponse> success;
    if (!error) {
      if (r.status >= 200 && r.status < 300) {
        auto parsed = codec->ParseSuccess(r.body);
        if (!parsed.ok()) {
          error = MakeError(LlmErrorKind::kMalformed, false, r.status, parsed.status().message());
        } else if (parsed->finish_reason == "length") {
          error = MakeError(LlmErrorKind::kTruncated, false, r.status,
                            "reply cut off at max_tokens=" + std::to_string(s->request.max_tokens) + " (" +
                                std::to_string(parsed->text.size()) + " bytes of text)");
          error->partial = std::move(*parsed);
        } else if (parsed->text.empty()) {
          error = MakeError(LlmErrorKind::kEmptyReply, false, r.status,
                            "reply has no text (finish_reason '" + parsed->finish_reason + "')");
          error->partial = std::move(*parsed);
        } else {
          success = std::move(*parsed);
        }
      } else {
        std::string m = ErrorMessageFromBody(r.body);
        std::string what = "HTTP " + std::to_string(r.status) + (m.empty() ? "" : ": " + m);
        LlmErrorKind kind = LlmErrorKind::kClientError;
        if (r.status == 429)
          kind = LlmErrorKind::kRateLimited;
        else if (r.status == 408)
          kind = LlmErrorKind::kTimeout;
        else if (r.status >= 500)
          kind = LlmErrorKind::kServerError;
        else if (r.status == 401 || r.status == 403)
          kind = LlmErrorKind::kAuth;
        retry = IsRetryableHttpStatus(r.status);
        if (IsContextOverflowMessage(m)) {
          kind = LlmErrorKind::kContextOverflow;
          retry = false;
          error = MakeError(kind, false, r.status,
                            what +
                                " (the prompt does not fit the model's context window: a shorter "
                                "prompt, or serve the model with a larger context)");
        } else if (!s->folded_system && !s->request.system.empty() && IsSystemRoleRejection(m)) {
          // A chat template without a system role (Gemma 2, Mistral's):
          // the system prompt goes first in the user message, sent again at
          // once, and so for every later call of this model.
          at.error = ScrubSecrets(what);
          s->attempts.push_back(at);
          {
            MutexLock lock(&mu);
            fold_system.insert(s->request.model);
          }
          FoldSystem(&s->request);
          s->folded_system = true;
          s->next_backoff = Millis(0);
          auto self = shared_from_this();
          transport->Post([self, s] { self->StartAttempt(s); });
          return;
        } else {
          error = MakeError(kind, retry, r.status, what + FixHint(r.status, s->url));
        }
      }
    }
    at.error = error ? error->message : "";
    s->attempts.push_back(at);

    if (success) {
      Finish(s, std::move(*success));
      return;
    }
    const int made = static_cast<int>(s->attempts.size());
    if (retry && made < config.retry.max_attempts && !s->token->cancelled()) {
      auto delay = RetryDelay(config.retry, made, r.retry_after, env->RandomU64());
      if (!delay) {
        error->message = ScrubSecrets(error->message + "; Retry-After " + std::to_string(r.retry_after->count()) +
                                      " ms exceeds max_retry_after_ms");
        Finish(s, std::move(*error));
        return;
      }
      s->next_backoff = *delay;
      auto self = shared_from_this();
      transport->After(*delay, s->token, [self, s] { self->StartAttempt(s); });
      return;
    }
    if (retry && made >= config.retry.max_attempts) {
      error->message = ScrubSecrets(error->message + " (after " + std::to_string(made) + " attempts)");
    }
    Finish(s, std::move(*error));
  }
};

HttpProvider::HttpProvider(ProviderConfig config, std::unique_ptr<HttpCodec> codec,
                           std::shared_ptr<CurlTransport> transport, Env* env)
    : name_(config.name), kind_(config.kind), transport_(transport), shared_(std::make_shared<Shared>()) {
  shared_->config = std::move(config);
  shared_->codec = std::move(codec);
  shared_->transport = transport_.get();
  shared_->env = env;
}

HttpProvider::~HttpProvider() {
  std::vector<std::shared_ptr<CallState>> to_cancel;
  std::deque<std::shared_ptr<CallState>> queued;
  {
    MutexLock lock(&shared_->mu);
    shared_->stopping = true;
    queued.swap(shared_->queue);
    to_cancel.assign(shared_->live.begin(), shared_->live.end());
  }
  for (auto& s : to_cancel) s->token->Cancel();
  auto shared = shared_;
  for (auto& s : queued) {
    shared_->transport->Post([shared, s] {
      shared->Finish(s, shared->MakeError(LlmErrorKind::kCancelled, false, 0, "provider shut down"));
    });
  }
  MutexLock lock(&shared_->mu);
  while (!shared_->live.empty()) lock.Wait(&shared_->cv);
  shared_->transport = nullptr;  // late CallHandle::Cancel() calls become no-ops
}

CallHandle HttpProvider::Call(LlmRequest request, LlmCallback done, const std::atomic<bool>* cancel) {
  auto s = std::make_shared<CallState>();
  s->request = std::move(request);
  s->done = std::move(done);
  s->token = std::make_shared<CancelToken>(cancel);
  s->start_nanos = shared_->env->MonotonicNanos();
  std::weak_ptr<Shared> weak_shared = shared_;
  std::weak_ptr<CallState> weak_state = s;
  s->token->SetWakeHook([weak_shared, weak_state] {
    auto sh = weak_shared.lock();
    auto st = weak_state.lock();
    if (!sh || !st) return;
    // Under mu: ~HttpProvider clears `transport` under mu before it may go away.
    MutexLock lock(&sh->mu);
    if (!sh->transport) return;
    for (auto it = sh->queue.begin(); it != sh->queue.end(); ++it) {
      if (*it == st) {
        sh->queue.erase(it);
        sh->transport->Post(
            [sh, st] { sh->Finish(st, sh->MakeError(LlmErrorKind::kCancelled, false, 0, "cancelled")); });
        return;
      }
    }
    sh->transport->Wakeup();
  });

  std::string invalid;
  if (s->request.model.empty())
    invalid = "request has no model";
  else if (s->request.user.empty())
    invalid = "request has no user message";
  else if (s->request.max_tokens <= 0)
    invalid = "max_tokens must be > 0";

  auto shared = shared_;
  bool start_now = false;
  bool stopped = false;
  {
    MutexLock lock(&shared->mu);
    shared->live.insert(s);
    if (shared->stopping) {
      stopped = true;
    } else if (invalid.empty()) {
      if (shared->active < static_cast<size_t>(shared->config.max_concurrency)) {
        ++shared->active;
        s->holds_slot = true;
        start_now = true;
      } else {
        shared->queue.push_back(s);
      }
    }
  }
  if (stopped || !invalid.empty()) {
    LlmError e = stopped ? shared->MakeError(LlmErrorKind::kCancelled, false, 0, "provider shut down")
                         : shared->MakeError(LlmErrorKind::kInvalidRequest, false, 0, invalid);
    shared->transport->Post([shared, s, e] { shared->Finish(s, e); });
  } else if (start_now) {
    shared->transport->Post([shared, s] { shared->StartAttempt(s); });
  }
  return CallHandle(s->token);
}

size_t HttpProvider::active() const {
  MutexLock lock(&shared_->mu);
  return shared_->active;
}

size_t HttpProvider::queued() const {
  MutexLock lock(&shared_->mu);
  return shared_->queue.size();
}

}  // namespace accelopt::llm
