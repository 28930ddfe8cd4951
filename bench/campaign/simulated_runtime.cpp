#include "simulated_runtime.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <queue>
#include <tuple>

#include "scripted_completion.hpp"

namespace accelopt::bench::campaign {

namespace {

using workflows::ActivityKind;
using workflows::ActivityRequest;

constexpr int64_t kEpochUs = 1'700'000'000'000'000;  // recorded_at of simulated time 0

struct Live {
  CampaignRun run;
  workflows::CampaignState state;
  workflows::MapBlobSource blobs;
  std::deque<ActivityRequest> llm_queue;  // waiting for the per-campaign cap
  int llm_out = 0;                        // past the cap (queued at the provider or running)
  bool done = false;
};

struct Finish {
  int64_t at_us;
  uint64_t seq;
  int campaign;
  ActivityRequest activity;
  bool operator>(const Finish& o) const { return std::tie(at_us, seq) > std::tie(o.at_us, o.seq); }
};

class Loop {
 public:
  Loop(const Limits& l, std::vector<CampaignRun> runs) : limits_(l), share_(l.provider_slots, l.share, l.explicit_cap) {
    for (auto& r : runs) live_.push_back(Live{std::move(r), {}, {}, {}, 0, false});
    figures_.campaign_end_us.assign(live_.size(), 0);
    running_ = static_cast<int>(live_.size());
    for (int i = 0; i < running_; ++i) share_.CampaignStarted();
  }

  Result<RunFigures> Run() {
    for (size_t c = 0; c < live_.size(); ++c) {
      Live& l = live_[c];
      ACCELOPT_ASSIGN_OR_RETURN(workflows::Command start,
                                workflows::StartCampaign(l.run.id, l.run.spec, l.run.sources, l.run.hardware));
      for (const auto& b : start.blobs) l.blobs.Put(b.content);
      ACCELOPT_RETURN_IF_ERROR(Append(l, std::move(start.event)));
      ACCELOPT_RETURN_IF_ERROR(Pump(static_cast<int>(c)));
    }
    while (!finishing_.empty()) {
      Finish f = finishing_.top();
      finishing_.pop();
      Advance(f.at_us);
      Live& l = live_[f.campaign];
      if (f.activity.kind == ActivityKind::kLlm) {
        --l.llm_out;
        --provider_running_;
        StartProviderWaiters();
      } else {
        --eval_running_;
        StartEvaluations();
      }
      if (!l.done) {
        workflows::testing::ScriptedOutcome out =
            workflows::testing::ScriptedCompletion(l.run.spec, l.run.script, f.activity);
        if (out.reply) l.blobs.Put(*out.reply);
        ACCELOPT_RETURN_IF_ERROR(Append(l, std::move(out.event)));
        ACCELOPT_RETURN_IF_ERROR(Pump(f.campaign));
      }
      LaunchQueued(f.campaign);
    }
    for (Live& l : live_) {
      if (!l.done) return Internal("campaign " + l.run.id + " stuck: nothing in flight, not finished");
      figures_.states.push_back(std::move(l.state));
    }
    return std::move(figures_);
  }

 private:
  Status Append(Live& l, workflows::Event e) {
    e.recorded_at_us = kEpochUs + now_us_;
    return workflows::Apply(l.state, e);
  }

  // CampaignRunner::Pump: Decide rounds until nothing more, then launch.
  Status Pump(int c) {
    Live& l = live_[c];
    std::vector<ActivityRequest> launch;
    while (!l.state.finished()) {
      ACCELOPT_ASSIGN_OR_RETURN(std::vector<workflows::Command> cmds, workflows::Decide(l.state, l.blobs));
      if (cmds.empty()) break;
      for (auto& cmd : cmds) {
        for (const auto& b : cmd.blobs) l.blobs.Put(b.content);
        if (!cmd.side_events.empty()) return Unimplemented("memory banks are not simulated");
        ACCELOPT_RETURN_IF_ERROR(Append(l, std::move(cmd.event)));
        if (cmd.run) launch.push_back(std::move(*cmd.run));
      }
    }
    if (l.state.finished() && !l.done) {
      l.done = true;
      figures_.campaign_end_us[c] = now_us_;
      figures_.makespan_us = std::max(figures_.makespan_us, now_us_);
      --running_;
      share_.CampaignEnded();
      if (limits_.fixed_cap <= 0)
        for (size_t o = 0; o < live_.size(); ++o)
          if (static_cast<int>(o) != c) LaunchQueued(static_cast<int>(o));
    }
    for (auto& a : launch) {
      if (a.kind == ActivityKind::kLlm) {
        ++figures_.llm_calls;
        if (l.llm_out >= Cap()) ++figures_.llm_calls_queued_by_cap;
        l.llm_queue.push_back(std::move(a));
      } else if (a.kind == ActivityKind::kEvaluation) {
        ++figures_.evaluations;
        if (!eval_queues_.count(c)) eval_turn_.push_back(c);
        eval_queues_[c].push_back(std::move(a));
      } else {
        return Unimplemented("memory activities are not simulated: " + a.activity_id);
      }
    }
    StartEvaluations();
    LaunchQueued(c);
    return Status::Ok();
  }

  // CampaignRunner::LaunchQueued, then the provider's FIFO of slots.
  void LaunchQueued(int c) {
    Live& l = live_[c];
    while (!l.llm_queue.empty() && l.llm_out < Cap()) {
      provider_queue_.emplace_back(c, std::move(l.llm_queue.front()));
      l.llm_queue.pop_front();
      ++l.llm_out;
    }
    StartProviderWaiters();
  }

  int Cap() const { return limits_.fixed_cap > 0 ? limits_.fixed_cap : share_.PerCampaign(); }

  void StartProviderWaiters() {
    while (!provider_queue_.empty() && provider_running_ < limits_.provider_slots) {
      auto [c, a] = std::move(provider_queue_.front());
      provider_queue_.pop_front();
      ++provider_running_;
      figures_.max_llm_out = std::max(figures_.max_llm_out, provider_running_);
      Schedule(c, std::move(a));
    }
  }

  // eval::Dispatcher: FIFO within a client, round robin across clients.
  void StartEvaluations() {
    while (!eval_turn_.empty() && eval_running_ < limits_.eval_slots) {
      const int c = eval_turn_.front();
      eval_turn_.pop_front();
      auto& q = eval_queues_[c];
      ActivityRequest a = std::move(q.front());
      q.pop_front();
      if (q.empty())
        eval_queues_.erase(c);
      else
        eval_turn_.push_back(c);
      ++eval_running_;
      Schedule(c, std::move(a));
    }
  }

  void Schedule(int c, ActivityRequest a) {
    const int64_t d = DurationUs(live_[c].run.timings, a.kind, a.activity_id);
    if (a.kind == ActivityKind::kEvaluation) figures_.eval_busy_us += d;
    if (a.kind == ActivityKind::kLlm) figures_.llm_busy_us += d;
    finishing_.push(Finish{now_us_ + d, seq_++, c, std::move(a)});
  }

  // Moves the clock, charging idle evaluation slots to their reason.
  void Advance(int64_t to_us) {
    const int64_t idle = static_cast<int64_t>(limits_.eval_slots - eval_running_) * (to_us - now_us_);
    if (idle > 0 && std::any_of(live_.begin(), live_.end(), [](const Live& l) { return !l.done; })) {
      if (std::any_of(live_.begin(), live_.end(), [](const Live& l) { return !l.llm_queue.empty(); }))
        figures_.idle_cap_us += idle;
      else if (!provider_queue_.empty())
        figures_.idle_provider_us += idle;
      else
        figures_.idle_latency_us += idle;
    }
    now_us_ = to_us;
  }

  Limits limits_;
  daemon::LlmShare share_;
  std::vector<Live> live_;
  RunFigures figures_;
  int64_t now_us_ = 0;
  uint64_t seq_ = 0;
  int running_ = 0;  // campaigns not finished
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> finishing_;
  std::deque<std::pair<int, ActivityRequest>> provider_queue_;
  int provider_running_ = 0;
  std::map<int, std::deque<ActivityRequest>> eval_queues_;
  std::deque<int> eval_turn_;
  int eval_running_ = 0;
};

}  // namespace

Result<RunFigures> Simulate(const Limits& limits, std::vector<CampaignRun> campaigns) {
  return Loop(limits, std::move(campaigns)).Run();
}

}  // namespace accelopt::bench::campaign
