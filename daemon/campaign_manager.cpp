#include "daemon/campaign_manager.hpp"

#include "base/log.hpp"
#include "base/sha256.hpp"
#include "base/text.hpp"
#include "daemon/spec_check.hpp"
#include "daemon/suite_dirs.hpp"
#include "evaluators/suites.hpp"
#include "llm/config.hpp"
#include "workflows/campaign_request.hpp"
#include "workflows/report.hpp"
#include "daemon/metric_names.hpp"

namespace accelopt::daemon {
namespace {

constexpr const char kSubmissionsStream[] = "submissions";

std::string NewCampaignId(Env* env) {
  time_t secs = static_cast<time_t>(env->NowMicros() / 1000000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char date[32];
  strftime(date, sizeof date, "%Y%m%d-%H%M%S", &tm);
  char rnd[8];
  snprintf(rnd, sizeof rnd, "%06x", static_cast<unsigned>(env->RandomU64() & 0xffffff));
  return std::string("c") + date + "-" + rnd;
}

}  // namespace

CampaignManager::CampaignManager(RuntimeServices services, const DaemonConfig& config, json hardware)
    : s_(std::move(services)), config_(config), hardware_(std::move(hardware)) {}

std::string CampaignManager::ProblemDir(const std::string& problem_id) const {
  // Configured suites and those imported under the state dir (daemon/suite_dirs.hpp).
  return eval::ProblemDirOf(SuiteFolders(config_, s_.env), problem_id);
}

Result<workflows::ProblemSource> CampaignManager::LoadProblem(const std::string& problem_id) const {
  const auto suites = SuiteFolders(config_, s_.env);
  std::string dir = eval::ProblemDirOf(suites, problem_id);
  if (dir.empty()) {
    std::vector<std::string> names;
    for (const auto& [name, folder] : suites) names.push_back("suites/" + name);
    const std::string suite = problem_id.substr(0, problem_id.rfind('/'));
    const std::string near = ClosestMatch(suite, names);
    return NotFound("unknown problem '" + problem_id + "' (expected suites/<suite>/<name>" +
                    (near.empty() ? "" : "; did you mean " + near + "/...?") + ")");
  }
  if (!s_.env->IsDirectory(dir)) {
    // A typo in the problem's name: the closest problem of its suite.
    const std::string prefix = problem_id.substr(0, problem_id.rfind('/') + 1);
    const std::string suite_dir = dir.substr(0, dir.rfind('/'));
    std::vector<std::string> ids;
    if (auto listed = eval::ListProblemDirs(suite_dir, s_.env); listed.ok())
      for (const auto& d : *listed) ids.push_back(prefix + d.substr(d.rfind('/') + 1));
    const std::string near = ClosestMatch(problem_id, ids);
    return NotFound("unknown problem '" + problem_id + "': no such problem in " + prefix.substr(0, prefix.size() - 1) +
                    (near.empty() ? " (acceloptctl suites lists them)" : "; did you mean '" + near + "'?"));
  }
  return eval::LoadProblemSource(dir, problem_id, s_.env);
}

Result<std::vector<llm::ProviderConfig>> CampaignManager::ProviderConfigs() const {
  // Parsed once: the config does not change while the daemon runs.
  std::call_once(providers_once_, [this] {
    auto r = llm::ParseProvidersConfig(config_.providers);
    if (r.ok())
      providers_ = std::move(*r);
    else
      providers_error_ = r.status();
  });
  if (!providers_error_.ok()) return providers_error_;
  return providers_;
}

Result<json> CampaignManager::ResolveRole(const std::string& role, json r) const {
  ACCELOPT_ASSIGN_OR_RETURN(const auto& providers, ProviderConfigs());
  return daemon::ResolveRole(config_, providers, role, std::move(r));
}

Result<CampaignManager::Checked> CampaignManager::Prepare(const json& raw_spec) const {
  ACCELOPT_ASSIGN_OR_RETURN(const auto& providers, ProviderConfigs());
  Checked c;
  ACCELOPT_ASSIGN_OR_RETURN(c.completed, CompleteSpec(config_, providers, raw_spec));
  ACCELOPT_ASSIGN_OR_RETURN(c.spec, workflows::ParseCampaignSpec(c.completed));
  ACCELOPT_RETURN_IF_ERROR(workflows::Validate(c.spec, ModelCheckFor(providers)));
  if (c.spec.replay && !Find(c.spec.replay->from)) {
    return NotFound("replay.from: no campaign '" + c.spec.replay->from + "' to replay (acceloptctl list shows them)");
  }
  for (const auto& pid : c.spec.problems) {
    auto src = LoadProblem(pid);
    if (!src.ok()) return src.status();
    c.sources.push_back(std::move(*src));
  }
  return c;
}

Result<json> CampaignManager::Check(const json& raw_spec) const {
  ACCELOPT_ASSIGN_OR_RETURN(Checked c, Prepare(raw_spec));
  // The campaign's own checks (StartCampaign) on a throwaway id: nothing is appended.
  json hardware;
  {
    MutexLock lock(&mu_);
    hardware = hardware_;
  }
  ACCELOPT_ASSIGN_OR_RETURN(const auto& providers, ProviderConfigs());
  auto cmd = workflows::StartCampaign("c-check", c.spec, c.sources, hardware, ModelCheckFor(providers));
  if (!cmd.ok()) return cmd.status();
  return json{{"ok", true}, {"spec", workflows::ToJson(c.spec)}, {"problems", c.spec.problems}};
}

Result<SubmitResult> CampaignManager::Submit(const json& raw_spec, const std::string& idempotency_key) {
  MutexLock submit_lock(&submit_mu_);
  if (!s_.log->Healthy())
    return Unavailable("the event log is unhealthy; not taking new campaigns: " + s_.log->HealthStatus().message());
  std::string spec_hash = Sha256Hex(Dump(raw_spec));
  if (!idempotency_key.empty()) {
    MutexLock lock(&mu_);
    auto it = keys_.find(idempotency_key);
    if (it != keys_.end()) {
      if (it->second.second != spec_hash)
        return Conflict("idempotency key '" + idempotency_key + "' was used for campaign " + it->second.first +
                        " with another spec");
      return SubmitResult{it->second.first, false};
    }
  }
  if (Active() >= static_cast<size_t>(config_.max_active_campaigns)) {
    return ResourceExhausted(std::to_string(Active()) + " campaigns are active, the limit is " +
                             std::to_string(config_.max_active_campaigns) +
                             " (limits.max_active_campaigns); wait for one to end or cancel one");
  }
  ACCELOPT_ASSIGN_OR_RETURN(Checked checked, Prepare(raw_spec));
  const workflows::CampaignSpec* spec = &checked.spec;
  const auto& sources = checked.sources;
  ACCELOPT_ASSIGN_OR_RETURN(const auto& providers, ProviderConfigs());
  const workflows::ModelCheck check = ModelCheckFor(providers);
  std::string id = NewCampaignId(s_.env);
  json hardware;
  {
    MutexLock lock(&mu_);
    hardware = hardware_;
  }
  auto cmd = workflows::StartCampaign(id, *spec, sources, hardware, check);
  if (!cmd.ok()) return cmd.status();

  store::StreamAppend campaign;
  campaign.stream = workflows::CampaignStream(id);
  campaign.expected_version = store::kNoStream;
  campaign.events.push_back(ToNewEvent(cmd->event));
  for (auto& b : cmd->blobs) campaign.blobs.push_back(b.content);
  store::StreamAppend submission;
  submission.stream = kSubmissionsStream;
  submission.expected_version = store::kAnyVersion;
  submission.events.push_back(
      store::NewEvent{runtime_event::kCampaignSubmitted,
                      0,
                      {{"campaign_id", id}, {"idempotency_key", idempotency_key}, {"spec_sha256", spec_hash}},
                      {},
                      {}});
  auto r = s_.log->Append({std::move(campaign), std::move(submission)});
  if (!r.ok()) return r.status();
  if (!idempotency_key.empty()) {
    MutexLock lock(&mu_);
    keys_[idempotency_key] = {id, spec_hash};
  }
  auto runner = CampaignRunner::Load(s_, id);
  if (!runner.ok()) return runner.status();
  Adopt(*runner, true);
  LogInfo("campaign " + id + " submitted (" + std::to_string(spec->problems.size()) + " problems)");
  return SubmitResult{id, true};
}

void CampaignManager::Adopt(std::shared_ptr<CampaignRunner> runner, bool start) {
  std::string id = runner->id();
  const bool counted = start && s_.llm_share;
  if (counted) s_.llm_share->CampaignStarted();
  runner->OnFinished(
      [m = s_.metrics, share = counted ? s_.llm_share : nullptr](const std::string&, const std::string& status) {
        if (m) m->Add(metric::kCampaignsFinishedTotal, {{"status", status}}, 1);
        if (share) share->CampaignEnded();
      });
  {
    MutexLock lock(&mu_);
    campaigns_[id] = runner;
  }
  if (start) runner->Start();
}

Status CampaignManager::Recover() {
  auto subs = s_.log->ReadStream(kSubmissionsStream);
  if (!subs.ok()) return subs.status();
  {
    MutexLock lock(&mu_);
    for (const auto& e : *subs) {
      std::string key = e.data.value("idempotency_key", "");
      if (!key.empty()) keys_[key] = {e.data.value("campaign_id", ""), e.data.value("spec_sha256", "")};
    }
  }
  int resumed = 0;
  for (const auto& info : s_.log->ListStreams("campaign-")) {
    std::string id = info.stream.substr(std::string("campaign-").size());
    auto runner = CampaignRunner::Load(s_, id);
    if (!runner.ok()) {
      LogError("cannot load campaign " + id + ": " + runner.status().ToString());
      continue;
    }
    bool run = !(*runner)->Finished();
    if (run) ++resumed;
    Adopt(*runner, run);
  }
  if (resumed) LogInfo("resumed " + std::to_string(resumed) + " unfinished campaigns");
  return Status::Ok();
}

std::shared_ptr<CampaignRunner> CampaignManager::Find(const std::string& id) const {
  MutexLock lock(&mu_);
  auto it = campaigns_.find(id);
  return it == campaigns_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<CampaignRunner>> CampaignManager::All() const {
  MutexLock lock(&mu_);
  std::vector<std::shared_ptr<CampaignRunner>> out;
  for (const auto& [id, r] : campaigns_) out.push_back(r);
  return out;
}

void CampaignManager::SetHardware(json hardware) {
  MutexLock lock(&mu_);
  hardware_ = std::move(hardware);
}

size_t CampaignManager::Active() const {
  size_t n = 0;
  for (const auto& r : All()) n += r->Finished() ? 0 : 1;
  return n;
}

void CampaignManager::Shutdown(const std::string& reason) {
  for (const auto& r : All()) {
    if (!r->Finished()) r->Interrupt(reason);
  }
}

json CampaignManager::Summary(const CampaignRunner& runner) {
  auto state = runner.Snapshot();
  // The state of this snapshot, not a later one: a campaign that ended just
  // after the snapshot shows as running here, never as ended without its
  // reason (runner.StateName() read now raced the end: "failed", reason "").
  std::string state_name = state.finished() ? state.status : "running";
  if (!state.finished() && runner.StateName() == "paused") state_name = "paused";
  json report = workflows::BuildReport(state);
  json problems = json::array();
  for (size_t i = 0; i < state.problems.size(); ++i) {
    const auto& ps = state.problems[i];
    // A problem still running when its campaign ended (cancelled, out of
    // budget, failed) shows how the campaign ended, not "running".
    std::string status = ps.status;
    if (status == workflows::kStatusRunning && state.finished()) status = state.status;
    json p = {{"name", ps.info.name},
              {"id", ps.info.id},
              {"status", status},
              {"iteration", static_cast<int>(ps.iterations.size())},
              {"iterations", state.spec.search.T}};
    if (i < report["problems"].size()) {
      const json& rp = report["problems"][i];
      if (rp.contains("baseline") && rp["baseline"].is_object()) p["baseline_us"] = rp["baseline"]["latency_us"];
      if (rp.contains("best") && rp["best"].is_object()) {
        p["best_us"] = rp["best"]["latency_us"];
        p["percent_of_peak"] = rp["best"]["percent_of_peak"];
      }
      // The report's headline speedup, with its interval (workflows/report.hpp).
      for (const char* k : {"speedup", "speedup_low", "speedup_high", "speedup_noisy", "speedup_source", "improvement"})
        p[k] = rp.value(k, json());
    }
    problems.push_back(p);
  }
  const auto& spent = state.budget.spent;
  const auto& caps = state.spec.budget;
  json budget = json::object();  // the spec's caps that are set
  if (caps.max_cost_usd) budget["max_cost_usd"] = *caps.max_cost_usd;
  if (caps.max_tokens) budget["max_tokens"] = *caps.max_tokens;
  if (caps.max_llm_calls) budget["max_llm_calls"] = *caps.max_llm_calls;
  if (caps.max_evaluations) budget["max_evaluations"] = *caps.max_evaluations;
  if (caps.max_wall_s) budget["max_wall_s"] = *caps.max_wall_s;
  json experiment;  // null unless the campaign is one arm x seed of an experiment
  if (state.spec.experiment) {
    experiment = {{"id", state.spec.experiment->id}, {"arm", state.spec.experiment->arm}, {"seed", state.spec.seed}};
  }
  json summary = {{"id", runner.id()},
                  {"experiment", experiment},
                  {"state", state_name},
                  {"reason", state.reason},
                  {"started_at_us", state.started_at_us},
                  {"mode", state.spec.mode},
                  {"problems", problems},
                  {"in_flight", runner.InFlight()},
                  {"waiting", runner.Waiting()},
                  {"spend",
                   {{"cost_usd", spent.cost_usd()},
                    {"tokens", spent.tokens},
                    {"llm_calls", spent.llm_calls},
                    {"evaluations", spent.evaluations}}},
                  {"budget", budget},
                  {"error", runner.Health().ok() ? json() : json(runner.Health().ToString())}};
  // Figures of a test-only stand-in, not measurements (workflows/campaign.hpp).
  if (report.contains("test_stand_in")) summary["test_stand_in"] = report["test_stand_in"]["notice"];
  return summary;
}

}  // namespace accelopt::daemon
