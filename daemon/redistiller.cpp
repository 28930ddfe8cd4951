#include "daemon/redistiller.hpp"

#include <algorithm>

#include "base/log.hpp"
#include "base/sha256.hpp"
#include "daemon/campaign_stream.hpp"
#include "workflows/campaign_state.hpp"
#include "workflows/parse.hpp"
#include "workflows/prompts.hpp"

namespace accelopt::daemon {

namespace be = workflows::bank_event;
namespace net = boost::asio;

namespace {

// The campaign's workflow state (runtime events skipped, as the runner does).
Result<workflows::CampaignState> FoldCampaign(store::EventLog* log, const std::string& campaign) {
  ACCELOPT_ASSIGN_OR_RETURN(auto records, log->ReadStream(workflows::CampaignStream(campaign)));
  if (records.empty()) return NotFound("no campaign '" + campaign + "'");
  return FoldCampaignRecords(records);
}

}  // namespace

Redistiller::Redistiller(Deps deps) : d_(std::move(deps)) {}

Redistiller::~Redistiller() { Shutdown(); }

Result<std::vector<workflows::RedistillPair>> Redistiller::PairsOf(const std::string& campaign) {
  ACCELOPT_ASSIGN_OR_RETURN(workflows::CampaignState st, FoldCampaign(d_.log, campaign));
  std::vector<workflows::RedistillPair> out;
  for (size_t p = 0; p < st.problems.size(); ++p) {
    for (const auto& it : st.problems[p].iterations) {
      for (size_t m = 0; m < it.pairs.size(); ++m) {
        workflows::RedistillPair rp;
        rp.campaign = campaign;
        rp.problem_index = static_cast<int>(p);
        rp.problem = st.problems[p].info.id;
        rp.iteration = it.iteration;
        rp.pair_index = static_cast<int>(m);
        rp.pair = it.pairs[m];
        out.push_back(std::move(rp));
      }
    }
  }
  return out;
}

Result<workflows::ProblemInfo> Redistiller::ProblemInfoOf(const std::string& campaign, int problem) {
  // CampaignStarted is the stream's first event and holds every problem.
  ACCELOPT_ASSIGN_OR_RETURN(auto records, d_.log->ReadStream(workflows::CampaignStream(campaign), 1, 1));
  if (records.empty() || records[0].type != workflows::event_type::kCampaignStarted) {
    return NotFound("no campaign '" + campaign + "'");
  }
  try {
    return workflows::ProblemInfoFromJson(records[0].data.at("problems").at(problem));
  } catch (const std::exception& e) {
    return Corruption("campaign '" + campaign + "': problem " + std::to_string(problem) + ": " + e.what());
  }
}

Result<json> Redistiller::Start(const RedistillRequest& request) {
  ACCELOPT_RETURN_IF_ERROR(workflows::ValidateBankName(request.bank));
  if (request.role.provider.empty() || request.role.model.empty()) {
    return InvalidArgument("re-distillation needs a summarizer provider and model");
  }
  if (request.max_pairs < 0) return InvalidArgument("max_pairs must be >= 0");
  std::lock_guard lock(mu_);
  if (stopping_) return FailedPrecondition("the daemon is stopping");
  if (runs_.count(request.bank)) {
    return FailedPrecondition("memory bank '" + request.bank + "' is already being re-distilled");
  }
  ACCELOPT_ASSIGN_OR_RETURN(workflows::BankView bank, d_.banks->Read(request.bank));
  for (const auto& r : bank.redistills) {
    if (r.status == "running") {
      return FailedPrecondition("memory bank '" + request.bank + "' is already being re-distilled (" + r.id + ")");
    }
  }
  std::vector<std::string> campaigns = request.campaigns;
  if (campaigns.size() == 1 && campaigns[0] == "*") {  // every campaign in the log
    campaigns.clear();
    const std::string prefix = workflows::CampaignStream("");
    for (const auto& s : d_.log->ListStreams(prefix)) campaigns.push_back(s.stream.substr(prefix.size()));
    if (campaigns.empty()) return FailedPrecondition("there are no campaigns in the log");
  } else if (campaigns.empty()) {
    std::set<std::string> seen;
    for (const auto& i : bank.items) {
      if (i.generation == bank.generation && !i.campaign.empty() && seen.insert(i.campaign).second) {
        campaigns.push_back(i.campaign);
      }
    }
    if (campaigns.empty()) {
      return FailedPrecondition("no campaign wrote to memory bank '" + request.bank +
                                "' (generation " + std::to_string(bank.generation) + "); name the campaigns");
    }
  }
  std::vector<workflows::RedistillPair> pairs;
  for (const auto& c : campaigns) {
    ACCELOPT_ASSIGN_OR_RETURN(auto ps, PairsOf(c));
    for (auto& p : ps) pairs.push_back(std::move(p));
  }
  if (request.max_pairs > 0 && static_cast<int>(pairs.size()) > request.max_pairs) pairs.resize(request.max_pairs);
  if (pairs.empty()) return FailedPrecondition("the campaigns named recorded no slow→fast pairs");

  int generation = bank.generation;
  for (const auto& g : bank.generations) generation = std::max(generation, g.value("generation", 1));
  for (const auto& r : bank.redistills) generation = std::max(generation, r.generation);
  ++generation;
  const std::string id = "r" + std::to_string(bank.redistills.size() + 1);
  json pj = json::array();
  for (const auto& p : pairs) pj.push_back(workflows::ToJson(p));
  ACCELOPT_RETURN_IF_ERROR(d_.banks->Append(
      request.bank, {{be::kMemoryRedistillStarted,
                      {{"redistill_id", id},
                       {"from_generation", bank.generation},
                       {"generation", generation},
                       {"role", workflows::ToJson(request.role)},
                       {"campaigns", campaigns},
                       {"pairs", pj}}}}));
  auto run = std::make_shared<Run>();
  run->bank = request.bank;
  run->id = id;
  run->generation = generation;
  run->role = request.role;
  run->pairs = std::move(pairs);
  runs_[run->bank] = run;
  LogInfo("memory bank " + run->bank + ": re-distilling " + std::to_string(run->pairs.size()) + " pairs with " +
          request.role.provider + "/" + request.role.model + " into generation " + std::to_string(generation));
  Launch(run);
  return json{{"bank", run->bank}, {"redistill_id", id}, {"generation", generation}, {"pairs", run->pairs.size()}};
}

Status Redistiller::ResumeAll() {
  ACCELOPT_ASSIGN_OR_RETURN(json state, d_.banks->State());
  std::lock_guard lock(mu_);
  for (const std::string& name : workflows::BankNames(state)) {
    ACCELOPT_ASSIGN_OR_RETURN(workflows::BankView bank, workflows::ReadBank(state, name));
    for (const auto& r : bank.redistills) {
      if (r.status != "running" || runs_.count(name)) continue;
      auto role = workflows::ParseRoleSpec(r.role, "summarizer");
      if (!role.ok()) return role.status().WithContext("memory bank " + name + " re-distillation " + r.id);
      auto run = std::make_shared<Run>();
      run->bank = name;
      run->id = r.id;
      run->generation = r.generation;
      run->role = *role;
      run->pairs = r.pairs;
      run->done.insert(r.done.begin(), r.done.end());
      runs_[name] = run;
      LogInfo("memory bank " + name + ": resuming re-distillation " + r.id + " (" +
              std::to_string(run->pairs.size() - run->done.size()) + " pairs left)");
      Launch(run);
    }
  }
  return Status::Ok();
}

void Redistiller::Launch(const std::shared_ptr<Run>& run) {
  // REQUIRES: mu_ held.
  while (!stopping_ && run->in_flight < d_.max_in_flight && run->next < run->pairs.size()) {
    const int index = static_cast<int>(run->next++);
    if (run->done.count(index)) continue;
    const workflows::RedistillPair& rp = run->pairs[index];
    auto info = ProblemInfoOf(rp.campaign, rp.problem_index);
    auto slow = d_.blobs->Get(rp.pair.slow_sha256);
    auto fast = d_.blobs->Get(rp.pair.fast_sha256);
    if (!info.ok() || !slow || !fast) {
      // Nothing to ask: record why, so the run can finish.
      const std::string why = !info.ok() ? info.status().message() : "the pair's code is missing from the log";
      auto self = run;
      net::post(*d_.ioc, [this, self, index, why] {
        OnReply(self, index, llm::LlmError{llm::LlmErrorKind::kInvalidRequest, false, 0, why, {}, {}});
      });
      ++run->in_flight;
      ++calls_in_flight_;
      continue;
    }
    workflows::ChatPrompt prompt = workflows::SummarizerPrompt(*info, *slow, *fast, rp.pair.speedup);
    llm::LlmRequest req;
    req.provider = run->role.provider;
    req.model = run->role.model;
    req.system = prompt.system;
    req.user = prompt.user;
    req.temperature = run->role.temperature;
    req.max_tokens = run->role.max_tokens;
    if (run->role.reasoning.is_string()) req.reasoning_effort = run->role.reasoning.get<std::string>();
    if (run->role.reasoning.is_number_integer()) req.thinking_budget = run->role.reasoning.get<int>();
    req.request_id = "redistill/" + run->bank + "/" + run->id + "/" + std::to_string(index);
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    run->cancels.push_back(cancel);
    ++run->in_flight;
    ++calls_in_flight_;
    auto self = run;
    d_.llm->Call(std::move(req),
                 [this, self, index, cancel](llm::LlmResult r) {
                   net::post(*d_.ioc, [this, self, index, r = std::move(r)]() mutable {
                     OnReply(self, index, std::move(r));
                   });
                 },
                 cancel.get());
  }
}

void Redistiller::OnReply(const std::shared_ptr<Run>& run, int index, llm::LlmResult r) {
  std::unique_lock lock(mu_);
  --run->in_flight;
  --calls_in_flight_;
  const bool cancelled = !r.ok() && r.error().kind == llm::LlmErrorKind::kCancelled;
  if (stopping_ || cancelled) {
    // Asked again when the daemon resumes the run.
    idle_.notify_all();
    return;
  }
  const workflows::RedistillPair& rp = run->pairs[index];
  json d = {{"redistill_id", run->id}, {"index", index}, {"model", run->role.model}};
  std::vector<std::string> blobs;
  if (r.ok()) {
    const auto& resp = r.response();
    blobs.push_back(resp.text);
    d["response_sha256"] = Sha256Hex(resp.text);
    d["usage"] = {{"input_tokens", resp.input_tokens}, {"output_tokens", resp.output_tokens}};
    d["cost_usd"] = resp.cost_usd;
    auto summary = workflows::ParseSummarizerReply(resp.text);
    if (!summary.ok()) {
      d["ok"] = false;
      d["error"] = summary.status().message();
    } else if (summary->no_optimization) {
      d["ok"] = false;
      d["error"] = "no optimization found";
    } else {
      workflows::MemoryItem item;
      item.id = "redistill/" + run->bank + "/" + run->id + "/m" + std::to_string(index);
      item.kind = rp.pair.kind;
      item.title = summary->title;
      item.description = summary->description;
      item.slow_snippet = summary->slow_snippet;
      item.fast_snippet = summary->fast_snippet;
      item.problem = rp.problem;
      item.iteration = rp.iteration;
      item.summarizer_activity = "redistill/" + run->id + "/" + std::to_string(index);
      item.pair = rp.pair;
      d["ok"] = true;
      d["item"] = workflows::ToJson(item);
    }
  } else {
    const auto& e = r.error();
    d["ok"] = false;
    d["error"] = Redact(e.ToString());
    d["cost_usd"] = e.partial ? e.partial->cost_usd : 0.0;
  }
  std::vector<workflows::Event> events = {{be::kMemoryRedistillSummarized, std::move(d)}};
  run->done.insert(index);
  const bool last = run->done.size() == run->pairs.size();
  if (last) events.push_back({be::kMemoryRedistillCompleted, {{"redistill_id", run->id}}});
  Status st = d_.banks->Append(run->bank, std::move(events), std::move(blobs));
  if (!st.ok()) {
    LogError("memory bank " + run->bank + ": re-distillation " + run->id + " stopped: " + st.ToString());
    run->finished = true;
    runs_.erase(run->bank);
    idle_.notify_all();
    return;
  }
  if (last) {
    run->finished = true;
    runs_.erase(run->bank);
    LogInfo("memory bank " + run->bank + ": re-distillation " + run->id + " completed; generation " +
            std::to_string(run->generation) + " is current");
  } else {
    Launch(run);
  }
  idle_.notify_all();
}

void Redistiller::Shutdown() {
  std::unique_lock lock(mu_);
  stopping_ = true;
  for (auto& [bank, run] : runs_) {
    for (auto& c : run->cancels) c->store(true);
  }
  // Replies are delivered through the io_context; wait until they are in.
  idle_.wait_for(lock, std::chrono::seconds(10), [this] { return calls_in_flight_ == 0; });
}

}  // namespace accelopt::daemon
