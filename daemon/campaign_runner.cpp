#include "daemon/campaign_runner.hpp"

#include <cstdio>
#include <ctime>
#include <future>

#include "base/log.hpp"
#include "base/sha256.hpp"
#include "daemon/llm_activity.hpp"

namespace accelopt::daemon {

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
// no price entry: the cost is unknown, recorded as 0), "replay" (not paid).
std::string CostSource(const llm::LlmResponse& r) {
  if (r.replayed) return "replay";
  if (!r.cost_known) return "no_price";
  return r.usage_estimated ? "estimate" : "usage";
}

std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
  return buf;
}

std::string UtcTime(int64_t us) {
  std::time_t t = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace


CampaignRunner::CampaignRunner(const RuntimeServices& s, std::string id)
    : s_(s), id_(std::move(id)), stream_(workflows::CampaignStream(id_)), strand_(net::make_strand(*s.ioc)) {}

Result<std::shared_ptr<CampaignRunner>> CampaignRunner::Load(const RuntimeServices& services,
                                                             const std::string& campaign_id) {
  std::shared_ptr<CampaignRunner> r(new CampaignRunner(services, campaign_id));
  auto records = services.log->ReadStream(r->stream_);
  if (!records.ok()) return records.status().WithContext("reading " + r->stream_);
  if (records->empty()) return NotFound("no campaign " + campaign_id);
  for (const auto& rec : *records) {
    r->version_ = rec.version;
    if (rec.type == runtime_event::kLlmCallWaiting) {
      const std::string provider = rec.data.value("provider", "?");
      ProviderWait& w = r->waiting_[provider];
      if (w.activities.empty() || rec.recorded_at_us < w.since_us) w.since_us = rec.recorded_at_us;
      w.error = rec.data.value("error", "");
      w.activities.insert(rec.data.value("activity_id", ""));
      continue;
    }
    if (rec.type == workflows::event_type::kLlmCallCompleted || rec.type == workflows::event_type::kLlmCallFailed) {
      const std::string activity = rec.data.value("activity_id", "");
      for (auto it = r->waiting_.begin(); it != r->waiting_.end();) {
        it->second.activities.erase(activity);
        it = it->second.activities.empty() ? r->waiting_.erase(it) : std::next(it);
      }
    }
    if (rec.type == runtime_event::kEvaluationPlaced) {
      r->placements_[rec.data.value("activity_id", "")] = rec.data.value("placement", json());
      continue;
    }
    if (rec.type == runtime_event::kCampaignPaused) { r->paused_ = true; continue; }
    if (rec.type == runtime_event::kCampaignResumed) { r->paused_ = false; continue; }
    Status st = ApplyRecord(r->state_, rec);
    if (!st.ok()) return st.WithContext(r->stream_ + " version " + std::to_string(rec.version));
  }
  return r;
}

void CampaignRunner::Post(std::function<void()> fn) {
  net::post(strand_, [self = shared_from_this(), fn = std::move(fn)] { fn(); });
}

void CampaignRunner::OnFinished(std::function<void(const std::string&, const std::string&)> fn) {
  std::lock_guard lock(mu_);
  on_finished_ = std::move(fn);
}

std::string CampaignRunner::StateName() const {
  std::lock_guard lock(mu_);
  if (!state_.finished() && paused_) return "paused";
  return state_.status.empty() ? "running" : state_.status;
}

bool CampaignRunner::Finished() const {
  std::lock_guard lock(mu_);
  return state_.finished();
}

workflows::CampaignState CampaignRunner::Snapshot() const {
  std::lock_guard lock(mu_);
  return state_;
}

size_t CampaignRunner::InFlight() const {
  std::lock_guard lock(mu_);
  return in_flight_.size() + llm_queue_.size();
}

Status CampaignRunner::Health() const {
  std::lock_guard lock(mu_);
  return broken_;
}

void CampaignRunner::Start() {
  Post([this] {
    std::vector<ActivityRequest> pending;
    {
      std::lock_guard lock(mu_);
      if (state_.finished() || interrupted_ || !broken_.ok()) {
        MaybeFinish();
        return;
      }
      auto p = workflows::PendingActivities(state_, *s_.blobs);
      if (!p.ok()) return Break(p.status());
      pending = std::move(*p);
    }
    if (!pending.empty()) LogInfo("campaign " + id_ + ": resuming " + std::to_string(pending.size()) + " activities");
    {
      std::lock_guard lock(mu_);
      for (const auto& [provider, w] : waiting_) {
        LogWarning("campaign " + id_ + ": still waiting for provider '" + provider + "' since " + UtcTime(w.since_us));
      }
      ArmWaitLimit();
    }
    for (const auto& a : pending) Launch(a);
    Pump();
  });
}

Status CampaignRunner::AppendAndApply(std::vector<store::NewEvent> events, std::vector<std::string> blobs,
                                      std::vector<workflows::Event>* applied,
                                      std::vector<store::StreamAppend> side) {
  store::StreamAppend a;
  a.stream = stream_;
  a.expected_version = static_cast<int64_t>(version_);
  a.events = std::move(events);
  a.blobs = std::move(blobs);
  std::vector<store::NewEvent> copy = a.events;
  int64_t t0 = s_.env->MonotonicNanos();
  std::vector<store::StreamAppend> batch;
  batch.push_back(std::move(a));
  for (auto& x : side) batch.push_back(std::move(x));
  auto r = s_.log->Append(std::move(batch));
  if (s_.metrics) {
    s_.metrics->Add("accelopt_event_log_appends_total", {{"outcome", r.ok() ? "ok" : "error"}}, 1);
    s_.metrics->Add("accelopt_event_log_append_seconds_sum", {}, (s_.env->MonotonicNanos() - t0) / 1e9);
    s_.metrics->Add("accelopt_event_log_append_seconds_count", {}, 1);
  }
  if (!r.ok()) return r.status();
  version_ = r->streams[0].last_version;
  for (auto& ne : copy) {
    if (IsRuntimeEventType(ne.type)) continue;
    workflows::Event e;
    e.type = ne.type;
    e.data = ne.data;
    e.schema_version = ne.schema_version == 0 ? 1 : ne.schema_version;
    e.recorded_at_us = r->recorded_at_us;
    Status st = workflows::Apply(state_, e);
    if (!st.ok()) return st.WithContext("applying " + e.type);
    if (applied) applied->push_back(std::move(e));
  }
  return Status::Ok();
}

void CampaignRunner::Break(const Status& s) {
  // REQUIRES: mu_ held.
  broken_ = s;
  LogError("campaign " + id_ + " stopped: " + s.ToString());
  CancelInFlight();
}

void CampaignRunner::Pump() {
  std::vector<ActivityRequest> to_launch;
  {
    std::lock_guard lock(mu_);
    if (!broken_.ok() || interrupted_) return;
    if (state_.finished()) {
      MaybeFinish();
      return;
    }
    if (paused_) return;
    for (int round = 0; round < 1000; ++round) {
      auto cmds = workflows::Decide(state_, *s_.blobs);
      if (!cmds.ok()) return Break(cmds.status());
      if (cmds->empty()) break;
      std::vector<store::NewEvent> events;
      std::vector<std::string> blobs;
      std::map<std::string, store::StreamAppend> side;  // memory banks, in stream order
      for (auto& c : *cmds) {
        events.push_back(ToNewEvent(c.event));
        for (auto& b : c.blobs) blobs.push_back(std::move(b.content));
        for (auto& se : c.side_events) {
          store::StreamAppend& sa = side[se.stream];
          sa.stream = se.stream;
          sa.events.push_back(ToNewEvent(se.event));
        }
        if (c.run) to_launch.push_back(*c.run);
      }
      std::vector<store::StreamAppend> side_appends;
      for (auto& [stream, sa] : side) side_appends.push_back(std::move(sa));
      Status st = AppendAndApply(std::move(events), std::move(blobs), nullptr, std::move(side_appends));
      if (!st.ok()) return Break(st);
      if (state_.finished()) break;
    }
  }
  for (const auto& a : to_launch) Launch(a);
  std::lock_guard lock(mu_);
  if (state_.finished()) MaybeFinish();
  else ArmDeadline();
}

void CampaignRunner::Launch(const ActivityRequest& a) {
  if (a.kind == ActivityKind::kLlm) {
    std::lock_guard lock(mu_);
    llm_queue_.push_back(a);
  } else if (a.kind == ActivityKind::kMemory) {
    TakeSnapshot(a);
  } else {
    StartEvaluation(a);
  }
  LaunchQueued();
}

void CampaignRunner::LaunchQueued() {
  std::vector<ActivityRequest> start;
  {
    std::lock_guard lock(mu_);
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
    OnLlmDone(a.activity_id, "", llm::LlmError{llm::LlmErrorKind::kInvalidRequest, false, 0,
                                               "malformed LLM request: " + built.status().message(), {}, {}});
    return;
  }
  llm::LlmRequest req = std::move(*built);
  std::string hash = llm::RequestHash(req);
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  {
    std::lock_guard lock(mu_);
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
      self->s_.metrics->Add("accelopt_llm_requests_started_total", {{"role", role}, {"model", req.model}}, 1);
    }
    self->s_.llm->Call(std::move(req), deliver, cancel.get());
  };
  if (!s_.gate) return send();
  // The gate sends it now, or when the provider answers again; the ticket is
  // stored before any completion can run (both on this strand).
  const uint64_t ticket = s_.gate->Enter(provider, std::move(send));
  std::lock_guard lock(mu_);
  auto it = in_flight_.find(id);
  if (it != in_flight_.end()) it->second.gate_ticket = ticket;
}

void CampaignRunner::DeferLlm(const std::string& activity_id, const std::string& provider,
                              const std::string& request_hash, const llm::LlmError& e, ActivityRequest request) {
  // REQUIRES: mu_ held, on the strand.
  const int64_t now = s_.env->NowMicros();
  const std::string error = Redact(e.Describe(provider));
  store::NewEvent ev{runtime_event::kLlmCallWaiting, 0,
                     {{"activity_id", activity_id},
                      {"provider", provider},
                      {"error", error},
                      {"error_kind", llm::LlmErrorKindName(e.kind)},
                      {"http_status", e.http_status},
                      {"attempts", static_cast<int>(e.attempts.size())},
                      {"request_sha256", request_hash}},
                     {}, {}};
  Status st = AppendAndApply({ev}, {}, nullptr);
  if (!st.ok()) return Break(st);
  if (s_.metrics) s_.metrics->Add("accelopt_llm_calls_waiting_total", {{"provider", provider}}, 1);
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

void CampaignRunner::ArmWaitLimit() {
  // REQUIRES: mu_ held.
  const auto& limit = state_.spec.budget.max_provider_wait_s;
  if (!limit || waiting_.empty() || state_.finished()) return;
  int64_t earliest = INT64_MAX;
  for (const auto& [p, w] : waiting_) earliest = std::min(earliest, w.since_us);
  const int64_t at = earliest + static_cast<int64_t>(*limit * 1e6);
  if (!wait_timer_) wait_timer_ = std::make_unique<net::steady_timer>(strand_);
  wait_timer_->expires_after(std::chrono::microseconds(std::max<int64_t>(0, at - s_.env->NowMicros()) + 1000));
  std::weak_ptr<CampaignRunner> weak = weak_from_this();
  wait_timer_->async_wait([weak](boost::system::error_code ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    std::lock_guard lock(self->mu_);
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
  // REQUIRES: mu_ held.
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
  std::lock_guard lock(mu_);
  json out = json::array();
  for (const auto& [provider, w] : waiting_) {
    out.push_back({{"provider", provider},
                   {"since_us", w.since_us},
                   {"error", w.error},
                   {"calls", static_cast<int>(w.activities.size())}});
  }
  return out;
}

void CampaignRunner::TakeSnapshot(const ActivityRequest& a) {
  // Reading the bank projection is quick and in-process: done on the strand,
  // after the batch that scheduled it (and any items it added) is durable.
  Post([this, a] {
    {
      std::lock_guard lock(mu_);
      if (!broken_.ok() || interrupted_ || state_.finished()) return;
      auto found = state_.activities.find(a.activity_id);
      if (found == state_.activities.end() || found->second.status != workflows::ActivityStatus::kScheduled) return;
      if (!s_.banks) return Break(FailedPrecondition("memory banks are not available in this runtime"));
      std::string name, problem;
      int limit = 0;
      try {
        name = a.request.at("bank").get<std::string>();
        problem = a.request.at("problem").get<std::string>();
        limit = a.request.at("limit").get<int>();
      } catch (const json::exception& e) {
        return Break(Corruption("memory activity " + a.activity_id + ": " + e.what()));
      }
      auto bank = s_.banks->ReadOrEmpty(name);
      if (!bank.ok()) return Break(bank.status().WithContext("reading memory bank " + name));
      json items = json::array();
      for (const auto& m : workflows::SelectForPrompt(*bank, problem, limit)) items.push_back(workflows::ToJson(m));
      auto ev = workflows::MemorySnapshotTakenEvent(a.activity_id, name, bank->version, bank->generation, items);
      Status st = AppendAndApply({ToNewEvent(ev)}, {}, nullptr);
      if (!st.ok()) return Break(st);
    }
    Pump();
  });
}

void CampaignRunner::RecordPlacement(const std::string& activity_id, const json& placement) {
  std::lock_guard lock(mu_);
  if (!broken_.ok() || state_.finished()) return;
  store::NewEvent ev{runtime_event::kEvaluationPlaced, 0, {{"activity_id", activity_id}, {"placement", placement}}, {}, {}};
  Status st = AppendAndApply({ev}, {}, nullptr);
  if (!st.ok()) return Break(st.WithContext("recording where evaluation " + activity_id + " runs"));
  placements_[activity_id] = placement;
}

void CampaignRunner::StartEvaluation(const ActivityRequest& a) {
  json q = a.request;
  if (s_.problem_dir && q.contains("problem") && q["problem"].is_string()) {
    q["problem"] = s_.problem_dir(q["problem"].get<std::string>());
  }
  auto req = eval::EvalRequest::FromJson(q);
  if (!req.ok()) {
    OnEvalDone(a.activity_id, eval::EvalResult::Failure(eval::EvalStatus::kInternalError,
                                                        "bad evaluation request: " + req.status().message()));
    return;
  }
  req->id = a.activity_id;
  std::weak_ptr<CampaignRunner> weak = weak_from_this();
  std::string id = a.activity_id;
  {
    std::lock_guard lock(mu_);
    in_flight_[id] = ActivityInFlight{ActivityKind::kEvaluation, nullptr, 0, 0, {}};
  }
  eval::Placement placement;
  placement.placed = [weak, id](const json& p) {
    if (auto self = weak.lock()) self->RecordPlacement(id, p);
  };
  {
    std::lock_guard lock(mu_);
    if (auto it = placements_.find(id); it != placements_.end()) placement.previous = it->second;
  }
  auto ticket = s_.eval->Submit(
      std::move(*req), id_,
      [weak, id](uint64_t, eval::EvalResult r) {
        if (auto self = weak.lock()) {
          self->Post([self, id, r = std::move(r)]() mutable { self->OnEvalDone(id, std::move(r)); });
        }
      },
      std::move(placement));
  std::lock_guard lock(mu_);
  if (!ticket.ok()) {
    in_flight_.erase(id);
    auto status = ticket.status();
    Post([this, id, status] {
      OnEvalDone(id, eval::EvalResult::Failure(eval::EvalStatus::kInternalError, status.message()));
    });
    return;
  }
  auto it = in_flight_.find(id);
  if (it != in_flight_.end()) it->second.ticket = *ticket;
}

void CampaignRunner::OnLlmDone(const std::string& activity_id, const std::string& request_hash, llm::LlmResult r) {
  {
    std::lock_guard lock(mu_);
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
      if (cancelled) s_.gate->Withdraw(gate_ticket);
      else if (outage) s_.gate->Unavailable(gate_ticket, Redact(r.error().Describe(provider)));
      else s_.gate->Answered(gate_ticket);
    }
    // A call cancelled by shutdown is re-run on the next start; one cancelled
    // because the campaign ended has nothing left to record.
    if (cancelled && (interrupted_ || state_.finished() || !broken_.ok())) {
      MaybeFinish();
      return;
    }
    if (!broken_.ok()) return;
    const bool defer = outage && s_.gate && request && !state_.finished() && !interrupted_;
    if (defer) {
      DeferLlm(activity_id, provider, request_hash, r.error(), std::move(*request));
    } else {
    std::vector<std::string> blobs;
    workflows::Event ev;
    auto role_model = [&]() -> std::pair<std::string, std::string> {
      auto it = state_.activities.find(activity_id);
      if (it == state_.activities.end()) return {"?", "?"};
      return {it->second.role, it->second.payload.value("model", "?")};
    };
    auto [role, model] = role_model();
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
      if (s_.metrics) {
        s_.metrics->Add("accelopt_llm_calls_total", {{"role", role}, {"model", model}, {"outcome", "ok"}}, 1);
        s_.metrics->Add("accelopt_llm_tokens_total", {{"role", role}, {"model", model}, {"kind", "input"}}, resp.input_tokens);
        s_.metrics->Add("accelopt_llm_tokens_total", {{"role", role}, {"model", model}, {"kind", "output"}}, resp.output_tokens);
        s_.metrics->Add("accelopt_llm_cost_usd_total", {{"role", role}, {"model", model}}, resp.cost_usd);
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
      ev.data["usage_source"] = usage_source;
      ev.data["cost_source"] = cost_source;
      if (s_.metrics) s_.metrics->Add("accelopt_llm_calls_total", {{"role", role}, {"model", model}, {"outcome", llm::LlmErrorKindName(e.kind)}}, 1);
    }
    // The provider field names the provider from the request payload.
    auto it = state_.activities.find(activity_id);
    if (it != state_.activities.end() && ev.data.contains("provider")) ev.data["provider"] = it->second.payload.value("provider", "");
    Status st = AppendAndApply({ToNewEvent(ev)}, std::move(blobs), nullptr);
    if (!st.ok()) return Break(st);
    // The call is resolved: it no longer waits for its provider.
    if (auto w = waiting_.find(provider); w != waiting_.end() && w->second.activities.erase(activity_id) > 0 &&
                                          w->second.activities.empty()) {
      LogInfo("campaign " + id_ + ": provider '" + provider + "' answers again after " +
              FormatSeconds(static_cast<double>(s_.env->NowMicros() - w->second.since_us) / 1e6) + " of waiting");
      waiting_.erase(w);
    }
    }
  }
  LaunchQueued();
  Pump();
}

void CampaignRunner::OnEvalDone(const std::string& activity_id, eval::EvalResult r) {
  {
    std::lock_guard lock(mu_);
    in_flight_.erase(activity_id);
    bool cancelled = r.status == eval::EvalStatus::kCancelled;
    if (cancelled && (interrupted_ || state_.finished() || !broken_.ok())) {
      MaybeFinish();
      return;
    }
    if (!broken_.ok()) return;
    if (s_.metrics) s_.metrics->Add("accelopt_evaluations_total", {{"outcome", eval::EvalStatusName(r.status)}}, 1);
    auto ev = workflows::EvaluationCompletedEvent(activity_id, r.ToJson());
    Status st = AppendAndApply({ToNewEvent(ev)}, {}, nullptr);
    if (!st.ok()) return Break(st);
  }
  Pump();
}

void CampaignRunner::ArmDeadline() {
  // REQUIRES: mu_ held.
  if (deadline_timer_ || state_.finished()) return;
  auto deadline = workflows::WallDeadlineUs(state_);
  if (!deadline) return;
  int64_t now = s_.env->NowMicros();
  deadline_timer_ = std::make_unique<net::steady_timer>(strand_);
  deadline_timer_->expires_after(std::chrono::microseconds(std::max<int64_t>(0, *deadline - now) + 1000));
  std::weak_ptr<CampaignRunner> weak = weak_from_this();
  deadline_timer_->async_wait([weak](boost::system::error_code ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    {
      std::lock_guard lock(self->mu_);
      if (self->state_.finished() || self->interrupted_ || !self->broken_.ok()) return;
      if (!self->waiting_.empty()) {
        // Waiting for a provider when the wall time ends: the campaign could
        // not do its work, and says why.
        self->GiveUpWaiting("the wall-time budget (max_wall_s " +
                            FormatSeconds(*self->state_.spec.budget.max_wall_s) + ")");
        return;
      }
      Status st = self->AppendAndApply({ToNewEvent(workflows::DeadlineReachedEvent())}, {}, nullptr);
      if (!st.ok()) return self->Break(st);
    }
    self->Pump();
  });
}

void CampaignRunner::CancelInFlight() {
  // REQUIRES: mu_ held.
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    ActivityInFlight& f = it->second;
    if (f.cancel) f.cancel->store(true);
    if (f.ticket) s_.eval->Cancel(f.ticket);
    // A call still held by the gate will never be sent nor answer.
    if (f.gate_ticket && s_.gate && s_.gate->Withdraw(f.gate_ticket)) {
      --llm_running_;
      it = in_flight_.erase(it);
      continue;
    }
    ++it;
  }
  llm_queue_.clear();
}

void CampaignRunner::MaybeFinish() {
  // REQUIRES: mu_ held.
  if (!state_.finished() || finished_notified_) return;
  finished_notified_ = true;
  CancelInFlight();
  if (deadline_timer_) deadline_timer_->cancel();
  if (wait_timer_) wait_timer_->cancel();
  waiting_.clear();
  // An end that did not do all its work is a warning: unattended runs are
  // read in the morning from the journal.
  const std::string line =
      "campaign " + id_ + " ended: " + state_.status + (state_.reason.empty() ? "" : " (" + state_.reason + ")");
  if (state_.status == workflows::kStatusFailed || state_.status == workflows::kStatusPartial) LogWarning(line);
  else LogInfo(line);
  if (on_finished_) {
    auto fn = on_finished_;
    auto status = state_.status;
    net::post(*s_.ioc, [fn, id = id_, status] { fn(id, status); });
  }
}

// The control operations compute their status under the lock and call the
// callback after releasing it (the callback may read the runner).
void CampaignRunner::Cancel(const std::string& reason, StatusCallback done) {
  Post([this, reason, done] {
    Status result;
    {
      std::lock_guard lock(mu_);
      if (state_.finished()) {
        result = FailedPrecondition("campaign " + id_ + " has already ended (" + state_.status + ")");
      } else {
        result = AppendAndApply({ToNewEvent(workflows::CampaignCancelledEvent(reason))}, {}, nullptr);
        if (!result.ok()) Break(result);
        else MaybeFinish();
      }
    }
    if (done) done(result);
  });
}

void CampaignRunner::Pause(StatusCallback done) {
  Post([this, done] {
    Status result;
    {
      std::lock_guard lock(mu_);
      if (state_.finished()) {
        result = FailedPrecondition("campaign " + id_ + " has already ended (" + state_.status + ")");
      } else if (!paused_) {
        store::NewEvent e{runtime_event::kCampaignPaused, 0, json::object(), {}, {}};
        result = AppendAndApply({e}, {}, nullptr);
        if (result.ok()) paused_ = true;
      }
    }
    if (done) done(result);
  });
}

void CampaignRunner::Resume(StatusCallback done) {
  Post([this, done] {
    Status result;
    bool pump = false;
    {
      std::lock_guard lock(mu_);
      if (state_.finished()) {
        result = FailedPrecondition("campaign " + id_ + " has already ended (" + state_.status + ")");
      } else if (paused_) {
        store::NewEvent e{runtime_event::kCampaignResumed, 0, json::object(), {}, {}};
        result = AppendAndApply({e}, {}, nullptr);
        if (result.ok()) {
          paused_ = false;
          pump = true;
        }
      }
    }
    if (pump) Pump();
    if (done) done(result);
  });
}

void CampaignRunner::Interrupt(const std::string& reason) {
  std::promise<void> done;
  auto fut = done.get_future();
  Post([this, reason, &done] {
    std::lock_guard lock(mu_);
    if (interrupted_) return done.set_value();
    interrupted_ = true;
    if (!state_.finished() && broken_.ok() && s_.log->Healthy()) {
      json ids = json::array();
      for (const auto& [id, f] : in_flight_) ids.push_back(id);
      for (const auto& a : llm_queue_) ids.push_back(a.activity_id);
      store::NewEvent e{runtime_event::kCampaignInterrupted, 0, {{"reason", reason}, {"in_flight", ids}}, {}, {}};
      Status st = AppendAndApply({e}, {}, nullptr);
      if (!st.ok()) LogWarning("campaign " + id_ + ": could not record the interruption: " + st.ToString());
    }
    CancelInFlight();
    if (deadline_timer_) deadline_timer_->cancel();
    if (wait_timer_) wait_timer_->cancel();
    done.set_value();
  });
  fut.wait();
}

}  // namespace accelopt::daemon
