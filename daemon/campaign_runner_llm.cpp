// CampaignRunner, the LLM-activity path: the per-campaign queue and cap,
// sending a call through the ProviderGate, recording its completion or
// failure (usage, cost and their sources), and waiting out provider outages
// (LlmCallWaiting, the wait limit, giving up). Contracts: campaign_runner.hpp.
#include "daemon/campaign_runner.hpp"

#include "base/log.hpp"
#include "base/sha256.hpp"
#include "daemon/campaign_runner_text.hpp"
#include "daemon/llm_activity.hpp"
#include "llm/error_class.hpp"
#include "daemon/metric_names.hpp"
#include "workflows/prompt_shorten.hpp"

#include <variant>

namespace accelopt::daemon {

using runner_text::FormatSeconds;
using runner_text::UtcTime;
using workflows::ActivityKind;
using workflows::ActivityRequest;

namespace {

// Errors that can heal by waiting: the provider is unavailable, the request
// is not at fault (the transport has already retried them).
bool IsOutage(const llm::LlmError& e) {
  switch (e.kind) {
    case llm::LlmErrorKind::kNetwork:
    case llm::LlmErrorKind::kTimeout:
    case llm::LlmErrorKind::kServerError:
    case llm::LlmErrorKind::kRateLimited:
      return true;
    default:
      return false;
  }
}

// Where a reply's token counts came from: "provider" (its usage), "estimate"
// (none given: bytes / 4), "replay" (a recorded call).
std::string UsageSource(const llm::LlmResponse& r) {
  if (r.replayed) return "replay";
  return r.usage_estimated ? "estimate" : "provider";
}

// Where its cost came from: "usage" (the provider's usage x the price table),
// "estimate" (estimated usage x the price table), "no_price" (the model has
// no price entry: the cost is unknown, recorded as 0), "zero_price" (priced
// at $0 per token, e.g. a model served on this machine: known to be free),
// "replay" (not paid).
std::string CostSource(const llm::LlmResponse& r) {
  if (r.replayed) return "replay";
  if (!r.cost_known) return "no_price";
  if (r.cost_usd == 0 && r.input_tokens + r.output_tokens > 0) return "zero_price";
  return r.usage_estimated ? "estimate" : "usage";
}

}  // namespace

void CampaignRunner::LaunchQueued() {
  std::vector<ActivityRequest> start;
  {
    MutexLock lock(&mu_);
    const int cap = s_.llm_share ? s_.llm_share->PerCampaign() : s_.max_llm_in_flight;
    while (!llm_queue_.empty() && llm_running_ < cap) {
      start.push_back(std::move(llm_queue_.front()));
      llm_queue_.pop_front();
      ++llm_running_;
    }
  }
  for (const auto& a : start) StartLlm(a);
}

void CampaignRunner::StartLlm(const ActivityRequest& a) {
  auto built = LlmRequestOf(a);
  if (!built.ok()) {
    OnLlmDone(a.activity_id, "",
              llm::LlmError{llm::LlmErrorKind::kInvalidRequest,
                            false,
                            0,
                            "malformed LLM request: " + built.status().message(),
                            {},
                            {}});
    return;
  }
  llm::LlmRequest req = std::move(*built);
  std::string hash = llm::RequestHash(req);
  if (AnswerFromRecording(a, hash)) return;
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  {
    MutexLock lock(&mu_);
    in_flight_[a.activity_id] = ActivityInFlight{ActivityKind::kLlm, cancel, 0, 0, a};
  }
  std::weak_ptr<CampaignRunner> weak = weak_from_this();
  std::string id = a.activity_id;
  const std::string provider = req.provider;
  auto send = [weak, id, hash, cancel, role = a.role, req = std::move(req)]() mutable {
    auto self = weak.lock();
    if (!self) return;
    auto deliver = [weak, id, hash](llm::LlmResult r) {
      if (auto self = weak.lock()) {
        self->Post([self, id, hash, r = std::move(r)]() mutable { self->OnLlmDone(id, hash, std::move(r)); });
      }
    };
    if (cancel->load()) {
      deliver(llm::LlmError{llm::LlmErrorKind::kCancelled, false, 0, "cancelled", {}, {}});
      return;
    }
    if (self->s_.metrics) {
      self->s_.metrics->Add(metric::kLlmRequestsStartedTotal, {{"role", role}, {"model", req.model}}, 1);
    }
    self->s_.llm->Call(std::move(req), deliver, cancel.get());
  };
  if (!s_.gate) return send();
  // The gate sends it now, or when the provider answers again; the ticket is
  // stored before any completion can run (both on this strand).
  const uint64_t ticket = s_.gate->Enter(provider, std::move(send));
  MutexLock lock(&mu_);
  auto it = in_flight_.find(id);
  if (it != in_flight_.end()) it->second.gate_ticket = ticket;
}

bool CampaignRunner::AnswerFromRecording(const ActivityRequest& a, const std::string& request_hash) {
  std::variant<RecordedReplies::Hit, RecordedReplies::Miss> found;
  std::string on_miss;
  {
    MutexLock lock(&mu_);
    if (!state_.spec.replay) return false;
    on_miss = state_.spec.replay->on_miss;
    if (replay_)
      found = replay_->Find(a.activity_id, state_);
    else
      found = RecordedReplies::Miss{replay_error_};
  }
  llm::LlmResult result = llm::LlmError{};
  if (auto* hit = std::get_if<RecordedReplies::Hit>(&found)) {
    auto j = ParseJson(hit->response_json);
    Result<llm::LlmResponse> parsed = j.ok() ? llm::LlmResponse::FromJson(*j) : Result<llm::LlmResponse>(j.status());
    if (parsed.ok()) {
      llm::LlmResponse resp = std::move(*parsed);
      resp.replayed = true;  // usage_source and cost_source "replay"
      resp.cost_usd = 0;     // nobody was paid for it
      resp.latency = std::chrono::milliseconds(0);
      resp.attempts.clear();
      result = std::move(resp);
      MutexLock lock(&mu_);
      replayed_from_[a.activity_id] = hit->recorded_activity_id;
    } else {
      found = RecordedReplies::Miss{"the recorded reply at " + hit->recorded_activity_id +
                                    " does not parse: " + parsed.status().message()};
    }
  }
  if (auto* miss = std::get_if<RecordedReplies::Miss>(&found)) {
    if (on_miss == "live") {
      LogInfo("campaign " + id_ + ": replay miss, calling the model: " + miss->reason);
      return false;
    }
    result = llm::LlmError{llm::LlmErrorKind::kReplayMiss, false, 0, miss->reason, {}, {}};
  }
  {
    MutexLock lock(&mu_);
    in_flight_[a.activity_id] =
        ActivityInFlight{ActivityKind::kLlm, std::make_shared<std::atomic<bool>>(false), 0, 0, a};
  }
  Post([self = shared_from_this(), id = a.activity_id, request_hash, r = std::move(result)]() mutable {
    self->OnLlmDone(id, request_hash, std::move(r));
  });
  return true;
}

void CampaignRunner::DeferLlm(const std::string& activity_id, const std::string& provider,
                              const std::string& request_hash, const llm::LlmError& e, ActivityRequest request) {
  const int64_t now = s_.env->NowMicros();
  const std::string error = Redact(e.Describe(provider));
  store::NewEvent ev{runtime_event::kLlmCallWaiting,
                     0,
                     {{"activity_id", activity_id},
                      {"provider", provider},
                      {"error", error},
                      {"error_kind", llm::LlmErrorKindName(e.kind)},
                      {"http_status", e.http_status},
                      {"attempts", static_cast<int>(e.attempts.size())},
                      {"request_sha256", request_hash}},
                     {},
                     {}};
  Status st = AppendAndApply({ev}, {}, nullptr);
  if (!st.ok()) return Break(st);
  if (s_.metrics) s_.metrics->Add(metric::kLlmCallsWaitingTotal, {{"provider", provider}}, 1);
  ProviderWait& w = waiting_[provider];
  if (w.activities.empty()) {
    w.since_us = now;
    LogWarning("campaign " + id_ + ": waiting for provider '" + provider + "' (" + error + ")");
  }
  w.error = error;
  w.activities.insert(activity_id);
  const auto& limit = state_.spec.budget.max_provider_wait_s;
  if (limit && static_cast<double>(now - w.since_us) >= *limit * 1e6) {
    return GiveUpWaiting("max_provider_wait_s " + FormatSeconds(*limit));
  }
  ArmWaitLimit();
  llm_queue_.push_front(std::move(request));
}

bool CampaignRunner::ShortenLlm(const std::string& activity_id, const std::string& provider,
                                const std::string& request_hash, const llm::LlmError& e, ActivityRequest request) {
  const workflows::ChatPrompt full{request.request.value("system", ""), request.request.value("user", "")};
  auto s = workflows::ShortenPrompt(full);
  if (!s) return false;
  const std::string error = Redact(e.Describe(provider));
  const std::string system_sha = Sha256Hex(s->prompt.system), user_sha = Sha256Hex(s->prompt.user);
  store::NewEvent ev{runtime_event::kLlmCallShortened,
                     0,
                     {{"activity_id", activity_id},
                      {"provider", provider},
                      {"error", error},
                      {"error_kind", llm::LlmErrorKindName(e.kind)},
                      {"request_sha256", request_hash},
                      {"trimmed", s->trimmed},
                      {"bytes_before", full.bytes()},
                      {"bytes_after", s->prompt.bytes()},
                      {"system_sha256", system_sha},
                      {"user_sha256", user_sha}},
                     {},
                     {}};
  Status st = AppendAndApply({ev}, {s->prompt.system, s->prompt.user}, nullptr);
  if (!st.ok()) {
    Break(st);
    return true;  // nothing more to record: the campaign is broken
  }
  std::string trimmed;
  for (const std::string& t : s->trimmed) trimmed += (trimmed.empty() ? "" : ", ") + t;
  LogInfo("campaign " + id_ + ": " + activity_id + " was over the model's context window (" + error +
          "); sending it once more without its " + trimmed + " (" + std::to_string(full.bytes()) + " -> " +
          std::to_string(s->prompt.bytes()) + " bytes)");
  shortened_[activity_id] = {system_sha, user_sha};
  request.request["system"] = std::move(s->prompt.system);
  request.request["user"] = std::move(s->prompt.user);
  llm_queue_.push_front(std::move(request));
  return true;
}

ActivityRequest CampaignRunner::WithShortenedPrompt(ActivityRequest a) const {
  auto it = shortened_.find(a.activity_id);
  if (a.kind != ActivityKind::kLlm || it == shortened_.end()) return a;
  auto system = s_.blobs->Get(it->second.first);
  auto user = s_.blobs->Get(it->second.second);
  if (system && user) {
    a.request["system"] = std::move(*system);
    a.request["user"] = std::move(*user);
  }
  return a;
}

void CampaignRunner::ArmWaitLimit() {
  const auto& limit = state_.spec.budget.max_provider_wait_s;
  if (!limit || waiting_.empty() || state_.finished()) return;
  int64_t earliest = INT64_MAX;
  for (const auto& [p, w] : waiting_) earliest = std::min(earliest, w.since_us);
  const int64_t at = earliest + static_cast<int64_t>(*limit * 1e6);
  if (!wait_timer_) wait_timer_ = std::make_unique<EnvTimer>(strand_, s_.env);
  wait_timer_->ExpiresAtWallMicros(at);
  std::weak_ptr<CampaignRunner> weak = weak_from_this();
  wait_timer_->AsyncWait([weak](boost::system::error_code ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    MutexLock lock(&self->mu_);
    if (self->state_.finished() || self->interrupted_ || !self->broken_.ok() || self->waiting_.empty()) return;
    const double limit_s = *self->state_.spec.budget.max_provider_wait_s;
    const int64_t now = self->s_.env->NowMicros();
    for (const auto& [p, w] : self->waiting_) {
      if (static_cast<double>(now - w.since_us) >= limit_s * 1e6) {
        return self->GiveUpWaiting("max_provider_wait_s " + FormatSeconds(limit_s));
      }
    }
    self->ArmWaitLimit();
  });
}

void CampaignRunner::GiveUpWaiting(const std::string& limit) {
  const int64_t now = s_.env->NowMicros();
  std::string why;
  for (const auto& [provider, w] : waiting_) {
    why += (why.empty() ? "" : "; ") + std::string("provider '") + provider + "' unavailable since " +
           UtcTime(w.since_us) + " (" + FormatSeconds(static_cast<double>(now - w.since_us) / 1e6) + ", " +
           std::to_string(w.activities.size()) + " calls waiting): " + w.error;
  }
  workflows::Event failed{workflows::event_type::kCampaignFailed, {{"reason", why + "; gave up at " + limit}}};
  Status st = AppendAndApply({ToNewEvent(failed)}, {}, nullptr);
  if (!st.ok()) return Break(st);
  MaybeFinish();
}

json CampaignRunner::Waiting() const {
  MutexLock lock(&mu_);
  json out = json::array();
  for (const auto& [provider, w] : waiting_) {
    out.push_back({{"provider", provider},
                   {"since_us", w.since_us},
                   {"error", w.error},
                   {"calls", static_cast<int>(w.activities.size())}});
  }
  return out;
}

void CampaignRunner::OnLlmDone(const std::string& activity_id, const std::string& request_hash, llm::LlmResult r) {
  {
    MutexLock lock(&mu_);
    uint64_t gate_ticket = 0;
    std::optional<ActivityRequest> request;
    if (auto fit = in_flight_.find(activity_id); fit != in_flight_.end()) {
      gate_ticket = fit->second.gate_ticket;
      request = fit->second.request;
    }
    bool was_in_flight = in_flight_.erase(activity_id) > 0;
    if (was_in_flight) --llm_running_;
    bool cancelled = !r.ok() && r.error().kind == llm::LlmErrorKind::kCancelled;
    std::string provider = "?";
    if (auto it = state_.activities.find(activity_id); it != state_.activities.end()) {
      provider = it->second.payload.value("provider", "?");
    }
    const bool outage = !r.ok() && IsOutage(r.error());
    if (s_.gate && gate_ticket) {
      if (cancelled)
        s_.gate->Withdraw(gate_ticket);
      else if (outage)
        s_.gate->Unavailable(gate_ticket, Redact(r.error().Describe(provider)));
      else
        s_.gate->Answered(gate_ticket);
    }
    // A call cancelled by shutdown is re-run on the next start, and so is one
    // that failed with an outage error once shutdown began (its last attempt
    // raced the cancel: recording it would fail an activity that must wait
    // the outage out). One cancelled, or failed with an outage error, after
    // the campaign ended (a probe in flight when it gave up waiting) has
    // nothing left to record.
    if ((cancelled || outage) && (interrupted_ || state_.finished() || !broken_.ok())) {
      MaybeFinish();
      return;
    }
    if (!broken_.ok()) return;
    // The campaign already stopped on an error that fails every call: the
    // same refusal of a call that was out at that moment adds nothing.
    const bool every_call = !r.ok() && llm::FailsEveryCall(r.error());
    if (every_call && state_.finished() && !r.error().partial) {
      MaybeFinish();
      return;
    }
    const bool defer = outage && s_.gate && request && !state_.finished() && !interrupted_;
    // Over the context window: sent once more with a shorter prompt (one
    // not shortened yet, and only if something can be left out).
    const bool shorten = !r.ok() && r.error().kind == llm::LlmErrorKind::kContextOverflow && request &&
                         !state_.finished() && !interrupted_ && !shortened_.count(activity_id);
    if (defer) {
      DeferLlm(activity_id, provider, request_hash, r.error(), std::move(*request));
    } else if (shorten && ShortenLlm(activity_id, provider, request_hash, r.error(), *request)) {
      // queued again; recorded as LlmCallShortened
    } else {
      std::vector<std::string> blobs;
      workflows::Event ev;
      // Inline, not a lambda: clang checks a lambda's body as code without mu_.
      std::string role = "?", model = "?";
      if (auto it = state_.activities.find(activity_id); it != state_.activities.end()) {
        role = it->second.role;
        model = it->second.payload.value("model", "?");
      }
      if (r.ok()) {
        const auto& resp = r.response();
        std::string text_hash = Sha256Hex(resp.text);
        blobs.push_back(resp.text);
        json full = llm::ToJson(resp);
        std::string full_text = Dump(full);
        blobs.push_back(full_text);
        ev = workflows::LlmCallCompletedEvent(activity_id, text_hash,
                                              workflows::LlmUsage{resp.input_tokens, resp.output_tokens}, resp.cost_usd,
                                              std::chrono::duration<double>(resp.latency).count(),
                                              static_cast<int>(resp.attempts.size()), "", resp.model);
        // Extra fields for people and for the replay provider (the fold ignores them).
        ev.data["request_sha256"] = request_hash;
        ev.data["response_json_sha256"] = Sha256Hex(full_text);
        ev.data["finish_reason"] = resp.finish_reason;
        ev.data["cached_tokens"] = resp.cached_tokens;
        ev.data["usage_source"] = UsageSource(resp);
        ev.data["cost_source"] = CostSource(resp);
        if (auto from = replayed_from_.find(activity_id); from != replayed_from_.end()) {
          ev.data["replayed_from"] = from->second;
          replayed_from_.erase(from);
        }
        if (s_.metrics) {
          s_.metrics->Add(metric::kLlmCallsTotal, {{"role", role}, {"model", model}, {"outcome", "ok"}}, 1);
          s_.metrics->Add(metric::kLlmTokensTotal, {{"role", role}, {"model", model}, {"kind", "input"}},
                          resp.input_tokens);
          s_.metrics->Add(metric::kLlmTokensTotal, {{"role", role}, {"model", model}, {"kind", "output"}},
                          resp.output_tokens);
          s_.metrics->Add(metric::kLlmCostUsdTotal, {{"role", role}, {"model", model}}, resp.cost_usd);
        }
      } else {
        const auto& e = r.error();
        workflows::LlmUsage usage;
        double cost = 0;
        if (e.partial) {
          usage = {e.partial->input_tokens, e.partial->output_tokens};
          cost = e.partial->cost_usd;
        }
        const std::string usage_source = e.partial ? UsageSource(*e.partial) : "none";
        const std::string cost_source = e.partial ? CostSource(*e.partial) : "none";
        ev = workflows::LlmCallFailedEvent(activity_id, Redact(e.Describe(provider)), usage, cost,
                                           static_cast<int>(e.attempts.size()));
        ev.data["request_sha256"] = request_hash;
        ev.data["error_kind"] = llm::LlmErrorKindName(e.kind);
        // Sent with a shorter prompt after a context overflow (LlmCallShortened).
        if (shortened_.count(activity_id)) ev.data["shortened"] = true;
        ev.data["usage_source"] = usage_source;
        ev.data["cost_source"] = cost_source;
        // A reply cut at max_tokens was paid for and may hold a whole kernel
        // before the cut: its text is kept (a blob) for the workflow to read.
        if (e.kind == llm::LlmErrorKind::kTruncated && e.partial && !e.partial->text.empty()) {
          ev.data["partial_sha256"] = Sha256Hex(e.partial->text);
          blobs.push_back(e.partial->text);
        }
        if (e.partial) {  // the server answered (HTTP 200): who, and how long it took
          ev.data["model"] = e.partial->model;
          ev.data["latency_s"] = std::chrono::duration<double>(e.partial->latency).count();
          ev.data["finish_reason"] = e.partial->finish_reason;
        }
        if (s_.metrics)
          s_.metrics->Add(metric::kLlmCallsTotal,
                          {{"role", role}, {"model", model}, {"outcome", llm::LlmErrorKindName(e.kind)}}, 1);
      }
      // The provider field names the provider from the request payload.
      auto it = state_.activities.find(activity_id);
      if (it != state_.activities.end() && ev.data.contains("provider"))
        ev.data["provider"] = it->second.payload.value("provider", "");
      std::vector<store::NewEvent> batch{ToNewEvent(ev)};
      // An error that fails every call (401/403, a misconfigured provider, 404
      // no such model) will not heal: the campaign stops at the first one, in
      // the same batch as the failed call, with the provider's message and the fix.
      if (every_call && !state_.finished()) {
        const std::string why =
            Redact("provider '" + provider + "' fails every call: " + r.error().Describe(provider) +
                   "; stopped after the first such call; fix: " + llm::FixForEveryCallError(r.error()));
        workflows::Event failed{workflows::event_type::kCampaignFailed, {{"reason", why}}};
        batch.push_back(ToNewEvent(failed));
        LogWarning("campaign " + id_ + ": " + why);
      }
      Status st = AppendAndApply(std::move(batch), std::move(blobs), nullptr);
      if (!st.ok()) return Break(st);
      if (!r.ok() && r.error().kind == llm::LlmErrorKind::kReplayMiss && state_.spec.replay &&
          state_.spec.replay->on_miss == "stop" && !state_.finished()) {
        // The replay cannot go on without calling a model: it says so and stops.
        workflows::Event failed{workflows::event_type::kCampaignFailed,
                                {{"reason", "replay stopped: " + r.error().message +
                                                " (submit with replay.on_miss \"live\" to call the model there)"}}};
        Status fst = AppendAndApply({ToNewEvent(failed)}, {}, nullptr);
        if (!fst.ok()) return Break(fst);
        CancelInFlight();
        MaybeFinish();
        return;
      }
      // The call is resolved: it no longer waits for its provider.
      if (auto w = waiting_.find(provider);
          w != waiting_.end() && w->second.activities.erase(activity_id) > 0 && w->second.activities.empty()) {
        LogInfo("campaign " + id_ + ": provider '" + provider + "' answers again after " +
                FormatSeconds(static_cast<double>(s_.env->NowMicros() - w->second.since_us) / 1e6) + " of waiting");
        waiting_.erase(w);
      }
    }
  }
  LaunchQueued();
  Pump();
}

}  // namespace accelopt::daemon
