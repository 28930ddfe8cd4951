// CampaignRunner, the evaluation path: an evaluation activity becomes an
// eval::EvalRequest for the dispatcher; where it runs (a Slurm job) is
// recorded before it is watched; its result is appended. Contracts:
// campaign_runner.hpp.
#include "daemon/campaign_runner.hpp"
#include "daemon/metric_names.hpp"

namespace accelopt::daemon {

using workflows::ActivityKind;
using workflows::ActivityRequest;

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
    MutexLock lock(&mu_);
    in_flight_[id] = ActivityInFlight{ActivityKind::kEvaluation, nullptr, 0, 0, {}};
  }
  eval::Placement placement;
  placement.placed = [weak, id](const json& p) {
    if (auto self = weak.lock()) self->RecordPlacement(id, p);
  };
  {
    MutexLock lock(&mu_);
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
  MutexLock lock(&mu_);
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

void CampaignRunner::RecordPlacement(const std::string& activity_id, const json& placement) {
  MutexLock lock(&mu_);
  if (!broken_.ok() || state_.finished()) return;
  store::NewEvent ev{
      runtime_event::kEvaluationPlaced, 0, {{"activity_id", activity_id}, {"placement", placement}}, {}, {}};
  Status st = AppendAndApply({ev}, {}, nullptr);
  if (!st.ok()) return Break(st.WithContext("recording where evaluation " + activity_id + " runs"));
  placements_[activity_id] = placement;
}

void CampaignRunner::OnEvalDone(const std::string& activity_id, eval::EvalResult r) {
  {
    MutexLock lock(&mu_);
    in_flight_.erase(activity_id);
    bool cancelled = r.status == eval::EvalStatus::kCancelled;
    if (cancelled && (interrupted_ || state_.finished() || !broken_.ok())) {
      MaybeFinish();
      return;
    }
    if (!broken_.ok()) return;
    if (s_.metrics) s_.metrics->Add(metric::kEvaluationsTotal, {{"outcome", eval::EvalStatusName(r.status)}}, 1);
    auto ev = workflows::EvaluationCompletedEvent(activity_id, r.ToJson());
    Status st = AppendAndApply({ToNewEvent(ev)}, {}, nullptr);
    if (!st.ok()) return Break(st);
  }
  Pump();
}

}  // namespace accelopt::daemon
