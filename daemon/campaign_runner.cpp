// CampaignRunner, the loop and its state: loading, the decide-append-launch
// loop (Pump), the memory activity, the deadline, the end, and the control
// operations. The LLM path is campaign_runner_llm.cpp, the evaluation path
// campaign_runner_eval.cpp (one class; contracts in campaign_runner.hpp).
#include "daemon/campaign_runner.hpp"

#include <future>

#include "base/log.hpp"
#include "daemon/campaign_runner_text.hpp"
#include "daemon/metric_names.hpp"

namespace accelopt::daemon {

using runner_text::FormatSeconds;
using runner_text::UtcTime;
using workflows::ActivityKind;
using workflows::ActivityRequest;

CampaignRunner::CampaignRunner(const RuntimeServices& s, std::string id)
    : s_(s), id_(std::move(id)), stream_(workflows::CampaignStream(id_)), strand_(net::make_strand(*s.ioc)) {}

Result<std::shared_ptr<CampaignRunner>> CampaignRunner::Load(const RuntimeServices& services,
                                                             const std::string& campaign_id) {
  std::shared_ptr<CampaignRunner> r(new CampaignRunner(services, campaign_id));
  auto records = services.log->ReadStream(r->stream_);
  if (!records.ok()) return records.status().WithContext("reading " + r->stream_);
  if (records->empty()) return NotFound("no campaign " + campaign_id);
  // No other thread sees the runner yet; the lock keeps the rule simple
  // (every guarded field is touched with mu_ held) and costs nothing here.
  MutexLock lock(&r->mu_);
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
    if (rec.type == runtime_event::kLlmCallShortened) {
      r->shortened_[rec.data.value("activity_id", "")] = {rec.data.value("system_sha256", ""),
                                                          rec.data.value("user_sha256", "")};
      continue;
    }
    if (rec.type == runtime_event::kEvaluationPlaced) {
      r->placements_[rec.data.value("activity_id", "")] = rec.data.value("placement", json());
      continue;
    }
    if (rec.type == runtime_event::kCampaignPaused) {
      r->paused_ = true;
      continue;
    }
    if (rec.type == runtime_event::kCampaignResumed) {
      r->paused_ = false;
      continue;
    }
    Status st = ApplyRecord(r->state_, rec);
    if (!st.ok()) return st.WithContext(r->stream_ + " version " + std::to_string(rec.version));
  }
  if (r->state_.spec.replay) {
    auto recorded = RecordedReplies::Load(services.log, r->state_.spec.replay->from);
    if (recorded.ok())
      r->replay_ = std::make_shared<const RecordedReplies>(std::move(*recorded));
    else
      r->replay_error_ = "the recorded campaign cannot be read: " + recorded.status().ToString();
  }
  return r;
}

void CampaignRunner::Post(std::function<void()> fn) {
  net::post(strand_, [self = shared_from_this(), fn = std::move(fn)] { fn(); });
}

void CampaignRunner::OnFinished(std::function<void(const std::string&, const std::string&)> fn) {
  MutexLock lock(&mu_);
  on_finished_ = std::move(fn);
}

std::string CampaignRunner::StateName() const {
  MutexLock lock(&mu_);
  if (!state_.finished() && paused_) return "paused";
  return state_.status.empty() ? "running" : state_.status;
}

bool CampaignRunner::Finished() const {
  MutexLock lock(&mu_);
  return state_.finished();
}

workflows::CampaignState CampaignRunner::Snapshot() const {
  MutexLock lock(&mu_);
  return state_;
}

size_t CampaignRunner::InFlight() const {
  MutexLock lock(&mu_);
  return in_flight_.size() + llm_queue_.size();
}

Status CampaignRunner::Health() const {
  MutexLock lock(&mu_);
  return broken_;
}

void CampaignRunner::Start() {
  Post([this] {
    std::vector<ActivityRequest> pending;
    {
      MutexLock lock(&mu_);
      if (state_.finished() || interrupted_ || !broken_.ok()) {
        MaybeFinish();
        return;
      }
      auto p = workflows::PendingActivities(state_, *s_.blobs);
      if (!p.ok()) return Break(p.status());
      // A call already shortened after a context overflow goes out with its
      // shorter prompt: the refused one is not sent again.
      for (auto& a : *p) pending.push_back(WithShortenedPrompt(std::move(a)));
    }
    if (!pending.empty()) LogInfo("campaign " + id_ + ": resuming " + std::to_string(pending.size()) + " activities");
    {
      MutexLock lock(&mu_);
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
                                      std::vector<workflows::Event>* applied, std::vector<store::StreamAppend> side) {
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
    s_.metrics->Add(metric::kEventLogAppendsTotal, {{"outcome", r.ok() ? "ok" : "error"}}, 1);
    s_.metrics->Add(metric::kEventLogAppendSecondsSum, {}, (s_.env->MonotonicNanos() - t0) / 1e9);
    s_.metrics->Add(metric::kEventLogAppendSecondsCount, {}, 1);
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
  broken_ = s;
  LogError("campaign " + id_ + " stopped: " + s.ToString());
  CancelInFlight();
}

void CampaignRunner::Pump() {
  std::vector<ActivityRequest> to_launch;
  {
    MutexLock lock(&mu_);
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
        if (c.event.type == workflows::event_type::kStandInFiguresNoted) {
          LogWarning("campaign " + id_ + ": " + workflows::kStandInCampaignNotice +
                     "; it writes no memory (memory learns only from measurements) and is never ranked with "
                     "measurements");
        }
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
  MutexLock lock(&mu_);
  if (state_.finished())
    MaybeFinish();
  else
    ArmDeadline();
}

void CampaignRunner::Launch(const ActivityRequest& a) {
  if (a.kind == ActivityKind::kLlm) {
    MutexLock lock(&mu_);
    llm_queue_.push_back(a);
  } else if (a.kind == ActivityKind::kMemory) {
    TakeSnapshot(a);
  } else {
    StartEvaluation(a);
  }
  LaunchQueued();
}

void CampaignRunner::TakeSnapshot(const ActivityRequest& a) {
  // Reading the bank projection is quick and in-process: done on the strand,
  // after the batch that scheduled it (and any items it added) is durable.
  Post([this, a] {
    {
      MutexLock lock(&mu_);
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

void CampaignRunner::ArmDeadline() {
  if (deadline_timer_ || state_.finished()) return;
  auto deadline = workflows::WallDeadlineUs(state_);
  if (!deadline) return;
  deadline_timer_ = std::make_unique<EnvTimer>(strand_, s_.env);
  deadline_timer_->ExpiresAtWallMicros(*deadline);
  std::weak_ptr<CampaignRunner> weak = weak_from_this();
  deadline_timer_->AsyncWait([weak](boost::system::error_code ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    {
      MutexLock lock(&self->mu_);
      if (self->state_.finished() || self->interrupted_ || !self->broken_.ok()) return;
      if (!self->waiting_.empty()) {
        // Waiting for a provider when the wall time ends: the campaign could
        // not do its work, and says why.
        self->GiveUpWaiting("the wall-time budget (max_wall_s " + FormatSeconds(*self->state_.spec.budget.max_wall_s) +
                            ")");
        return;
      }
      Status st = self->AppendAndApply({ToNewEvent(workflows::DeadlineReachedEvent())}, {}, nullptr);
      if (!st.ok()) return self->Break(st);
    }
    self->Pump();
  });
}

void CampaignRunner::CancelInFlight() {
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
  if (!state_.finished() || finished_notified_) return;
  finished_notified_ = true;
  CancelInFlight();
  if (deadline_timer_) deadline_timer_->Cancel();
  if (wait_timer_) wait_timer_->Cancel();
  waiting_.clear();
  // An end that did not do all its work is a warning: unattended runs are
  // read in the morning from the journal.
  const std::string line =
      "campaign " + id_ + " ended: " + state_.status + (state_.reason.empty() ? "" : " (" + state_.reason + ")");
  if (state_.status == workflows::kStatusFailed || state_.status == workflows::kStatusPartial)
    LogWarning(line);
  else
    LogInfo(line);
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
      MutexLock lock(&mu_);
      if (state_.finished()) {
        result = FailedPrecondition("campaign " + id_ + " has already ended (" + state_.status + ")");
      } else {
        result = AppendAndApply({ToNewEvent(workflows::CampaignCancelledEvent(reason))}, {}, nullptr);
        if (!result.ok())
          Break(result);
        else
          MaybeFinish();
      }
    }
    if (done) done(result);
  });
}

void CampaignRunner::Pause(StatusCallback done) {
  Post([this, done] {
    Status result;
    {
      MutexLock lock(&mu_);
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
      MutexLock lock(&mu_);
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
    MutexLock lock(&mu_);
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
    if (deadline_timer_) deadline_timer_->Cancel();
    if (wait_timer_) wait_timer_->Cancel();
    done.set_value();
  });
  fut.wait();
}

}  // namespace accelopt::daemon
