#include "daemon/redistiller.hpp"

#include "base/log.hpp"
#include "daemon/campaign_stream.hpp"
#include "daemon/llm_activity.hpp"
#include "workflows/campaign_state.hpp"

namespace accelopt::daemon {

namespace net = boost::asio;

namespace {

// The problems of the campaigns in the log: CampaignStarted is a campaign
// stream's first event and holds every problem.
class LogProblems : public workflows::CampaignProblems {
 public:
  explicit LogProblems(const store::EventLog* log) : log_(log) {}
  Result<workflows::ProblemInfo> Get(const std::string& campaign, int problem) const override {
    auto records = log_->ReadStream(workflows::CampaignStream(campaign), 1, 1);
    if (!records.ok()) return Status(records.status().code(), Redact(records.status().message()));
    if (records->empty() || (*records)[0].type != workflows::event_type::kCampaignStarted) {
      return NotFound(Redact("no campaign '" + campaign + "'"));
    }
    auto corrupt = [&](const std::string& why) {
      return Corruption(Redact("campaign '" + campaign + "': problem " + std::to_string(problem) + ": " + why));
    };
    const json* info = nullptr;
    Status found = DecodeJsonFields("CampaignStarted", [&] { info = &(*records)[0].data.at("problems").at(problem); });
    if (!found.ok()) return corrupt(found.message());
    auto decoded = workflows::ProblemInfo::FromJson(*info);
    if (!decoded.ok()) return corrupt(decoded.status().message());
    return decoded;
  }

 private:
  const store::EventLog* log_;
};

// A call's result in the workflow's terms (errors scrubbed of secrets).
workflows::RedistillReply ReplyOf(const llm::LlmResult& r) {
  workflows::RedistillReply out;
  if (r.ok()) {
    const auto& resp = r.response();
    out.ok = true;
    out.text = resp.text;
    out.input_tokens = resp.input_tokens;
    out.output_tokens = resp.output_tokens;
    out.cost_usd = resp.cost_usd;
  } else {
    const auto& e = r.error();
    out.error = Redact(e.ToString());
    out.cost_usd = e.partial ? e.partial->cost_usd : 0.0;
  }
  return out;
}

}  // namespace

Redistiller::Redistiller(Deps deps) : d_(std::move(deps)) {}

Redistiller::~Redistiller() { Shutdown(); }

Result<std::vector<workflows::RedistillPair>> Redistiller::PairsOf(const std::string& campaign) {
  // The campaign's workflow state (runtime events skipped, as the runner does).
  ACCELOPT_ASSIGN_OR_RETURN(auto records, d_.log->ReadStream(workflows::CampaignStream(campaign)));
  if (records.empty()) return NotFound("no campaign '" + campaign + "'");
  ACCELOPT_ASSIGN_OR_RETURN(workflows::CampaignState st, FoldCampaignRecords(records));
  return workflows::RecordedPairs(st);
}

Result<workflows::RedistillState> Redistiller::FoldBank(const std::string& bank, const std::string& id) {
  ACCELOPT_ASSIGN_OR_RETURN(auto records, d_.log->ReadStream(workflows::MemoryBankStream(bank)));
  workflows::RedistillState st = workflows::NewRedistillState(bank, id);
  for (const auto& r : records) ACCELOPT_RETURN_IF_ERROR(workflows::ApplyRedistill(st, ToWorkflowEvent(r)));
  return st;
}

Result<json> Redistiller::Start(const RedistillRequest& request) {
  ACCELOPT_RETURN_IF_ERROR(workflows::ValidateRedistillRequest(request));
  MutexLock lock(&mu_);
  if (stopping_) return FailedPrecondition("the daemon is stopping");
  if (runs_.count(request.bank)) {
    return FailedPrecondition("memory bank '" + request.bank + "' is already being re-distilled");
  }
  ACCELOPT_ASSIGN_OR_RETURN(workflows::BankView bank, d_.banks->Read(request.bank));
  std::vector<std::string> every_campaign;
  if (workflows::NamesEveryCampaign(request.campaigns)) {
    const std::string prefix = workflows::CampaignStream("");
    for (const auto& s : d_.log->ListStreams(prefix)) every_campaign.push_back(s.stream.substr(prefix.size()));
  }
  ACCELOPT_ASSIGN_OR_RETURN(auto campaigns, workflows::RedistillCampaigns(bank, request, every_campaign));
  std::vector<workflows::RedistillPair> pairs;
  for (const auto& c : campaigns) {
    ACCELOPT_ASSIGN_OR_RETURN(auto ps, PairsOf(c));
    for (auto& p : ps) pairs.push_back(std::move(p));
  }
  ACCELOPT_ASSIGN_OR_RETURN(workflows::Event started,
                            workflows::StartRedistill(bank, request, campaigns, std::move(pairs)));
  auto run = std::make_shared<Run>();
  run->state = workflows::NewRedistillState(request.bank, started.data.at("redistill_id").get<std::string>());
  ACCELOPT_RETURN_IF_ERROR(workflows::ApplyRedistill(run->state, started));
  ACCELOPT_RETURN_IF_ERROR(d_.banks->Append(request.bank, {std::move(started)}));
  const workflows::RedistillState& st = run->state;
  runs_[st.bank] = run;
  LogInfo("memory bank " + st.bank + ": re-distilling " + std::to_string(st.pairs.size()) + " pairs with " +
          st.role.provider + "/" + st.role.model + " into generation " + std::to_string(st.generation));
  json out = {{"bank", st.bank}, {"redistill_id", st.id}, {"generation", st.generation}, {"pairs", st.pairs.size()}};
  Step(run);
  return out;
}

Status Redistiller::ResumeAll() {
  ACCELOPT_ASSIGN_OR_RETURN(json state, d_.banks->State());
  MutexLock lock(&mu_);
  for (const std::string& name : workflows::BankNames(state)) {
    ACCELOPT_ASSIGN_OR_RETURN(workflows::BankView bank, workflows::ReadBank(state, name));
    for (const auto& r : bank.redistills) {
      if (r.status != workflows::kRedistillRunning || runs_.count(name)) continue;
      auto folded = FoldBank(name, r.id);
      if (!folded.ok()) return folded.status().WithContext("memory bank " + name + " re-distillation " + r.id);
      auto run = std::make_shared<Run>();
      run->state = std::move(*folded);
      runs_[name] = run;
      LogInfo("memory bank " + name + ": resuming re-distillation " + r.id + " (" +
              std::to_string(run->state.pairs.size() - run->state.done.size()) + " pairs left)");
      Step(run);
    }
  }
  return Status::Ok();
}

void Redistiller::Step(const std::shared_ptr<Run>& run) {
  if (stopping_ || run->finished) return;
  const int room = d_.max_in_flight - static_cast<int>(run->in_flight.size());
  auto cmd = workflows::DecideRedistill(run->state, *d_.blobs, LogProblems(d_.log), run->in_flight, room);
  if (!cmd.ok()) return Finish(run, cmd.status());
  if (Status st = Record(*run, *cmd); !st.ok()) return Finish(run, st);
  if (run->state.finished()) return Finish(run, Status::Ok());
  for (const auto& call : cmd->calls) StartCall(run, call);
}

void Redistiller::StartCall(const std::shared_ptr<Run>& run, const workflows::RedistillCall& call) {
  const int pair = call.pair;
  run->in_flight.insert(pair);
  ++calls_in_flight_;
  auto self = run;
  auto req = LlmRequestOf(call.activity);
  if (!req.ok()) {
    llm::LlmError e{
        llm::LlmErrorKind::kInvalidRequest, false, 0, "malformed LLM request: " + req.status().message(), {}, {}};
    net::post(*d_.ioc, [this, self, pair, e] { OnReply(self, pair, e); });
    return;
  }
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  run->cancels.push_back(cancel);
  d_.llm->Call(
      std::move(*req),
      [this, self, pair](llm::LlmResult r) {
        net::post(*d_.ioc, [this, self, pair, r = std::move(r)]() mutable { OnReply(self, pair, std::move(r)); });
      },
      cancel.get());
}

Status Redistiller::Record(Run& run, const workflows::RedistillCommand& cmd) {
  if (cmd.events.empty()) return Status::Ok();
  ACCELOPT_RETURN_IF_ERROR(d_.banks->Append(run.state.bank, cmd.events, cmd.blobs));
  for (const auto& e : cmd.events) ACCELOPT_RETURN_IF_ERROR(workflows::ApplyRedistill(run.state, e));
  return Status::Ok();
}

void Redistiller::Finish(const std::shared_ptr<Run>& run, const Status& why) {
  const workflows::RedistillState& st = run->state;
  if (why.ok()) {
    LogInfo("memory bank " + st.bank + ": re-distillation " + st.id + " completed; generation " +
            std::to_string(st.generation) + " is current");
  } else {
    LogError("memory bank " + st.bank + ": re-distillation " + st.id + " stopped: " + why.ToString());
  }
  run->finished = true;
  auto it = runs_.find(st.bank);
  if (it != runs_.end() && it->second == run) runs_.erase(it);
}

void Redistiller::OnReply(const std::shared_ptr<Run>& run, int pair, llm::LlmResult r) {
  MutexLock lock(&mu_);
  run->in_flight.erase(pair);
  --calls_in_flight_;
  const bool cancelled = !r.ok() && r.error().kind == llm::LlmErrorKind::kCancelled;
  // Cancelled or stopping: asked again when the daemon resumes the run.
  if (!stopping_ && !cancelled && !run->finished) {
    auto cmd = workflows::RecordReply(run->state, pair, ReplyOf(r));
    Status st = cmd.ok() ? Record(*run, *cmd) : cmd.status();
    if (!st.ok()) {
      Finish(run, st);
    } else if (run->state.finished()) {
      Finish(run, Status::Ok());
    } else {
      Step(run);
    }
  }
  idle_.notify_all();
}

void Redistiller::Shutdown() {
  MutexLock lock(&mu_);
  stopping_ = true;
  for (auto& [bank, run] : runs_) {
    for (auto& c : run->cancels) c->store(true);
  }
  // Replies are delivered through the io_context; wait until they are in.
  // (A loop, not wait_for's predicate: clang checks a lambda as code without mu_.)
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (calls_in_flight_ != 0) {
    if (!lock.WaitUntil(&idle_, deadline)) break;
  }
}

}  // namespace accelopt::daemon
