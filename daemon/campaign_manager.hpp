// CampaignManager: the set of campaigns a daemon runs.
//
// Submissions: a spec (JSON) is completed from the daemon's config (roles
// with their prices, default search parameters, suite), its problems are
// loaded from the suites, and the campaign's first event (CampaignStarted)
// is appended together with a CampaignSubmitted record in the "submissions"
// stream, in one atomic batch. An idempotency key that was seen before
// returns the campaign it created (a different spec under the same key is a
// conflict). Everything is checked before anything runs.
//
// At start-up Recover() loads every campaign stream and resumes the
// unfinished ones (unless paused). Shutdown() interrupts them.
//
// Thread safety: all public methods are thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.hpp"
#include "daemon/campaign_runner.hpp"
#include "daemon/config.hpp"
#include "llm/config.hpp"

namespace accelopt::daemon {

struct SubmitResult {
  std::string id;
  bool created = false;
};

class CampaignManager {
 public:
  // `hardware` is the backend facts shown to the agents (calibration).
  CampaignManager(RuntimeServices services, const DaemonConfig& config, json hardware);

  Status Recover();
  Result<SubmitResult> Submit(const json& spec, const std::string& idempotency_key);
  // Every check Submit makes (daemon/spec_check.hpp, the problems loaded, the
  // campaign's own start checks), nothing appended: {"ok": true, "spec": the
  // completed spec, "problems": [ids]}, or Submit's error.
  Result<json> Check(const json& spec) const;
  std::shared_ptr<CampaignRunner> Find(const std::string& id) const;
  std::vector<std::shared_ptr<CampaignRunner>> All() const;
  void Shutdown(const std::string& reason);

  // Summary JSON of a campaign (docs/api.md).
  static json Summary(const CampaignRunner& runner);

  // Loads a problem folder for a problem id such as "suites/cpu/silu".
  Result<workflows::ProblemSource> LoadProblem(const std::string& problem_id) const;
  // The folder of a problem id; "" when the suite is unknown.
  std::string ProblemDir(const std::string& problem_id) const;

  size_t Active() const;
  // A role's JSON (spec "roles.<role>" form) completed from the daemon's
  // roles and the providers' prices; kInvalidArgument without provider/model.
  Result<json> ResolveRole(const std::string& role, json overrides) const;
  // The backend facts shown to the agents of campaigns submitted from now on.
  void SetHardware(json hardware);

 private:
  struct Checked {
    json completed;
    workflows::CampaignSpec spec;
    std::vector<workflows::ProblemSource> sources;
  };
  // The spec completed, parsed and validated, its problems loaded.
  Result<Checked> Prepare(const json& raw_spec) const;
  // The "providers" section, parsed (for prices and known models).
  Result<std::vector<llm::ProviderConfig>> ProviderConfigs() const;
  void Adopt(std::shared_ptr<CampaignRunner> runner, bool start);

  RuntimeServices s_;
  DaemonConfig config_;
  json hardware_;
  mutable Mutex mu_;
  std::map<std::string, std::shared_ptr<CampaignRunner>> campaigns_ ACCELOPT_GUARDED_BY(mu_);
  std::map<std::string, std::pair<std::string, std::string>> keys_
      ACCELOPT_GUARDED_BY(mu_);  // key -> (campaign id, spec hash)
  Mutex submit_mu_;
  mutable std::once_flag providers_once_;
  mutable std::vector<llm::ProviderConfig> providers_;
  mutable Status providers_error_;  // one submission at a time (the submissions stream's order)
};

}  // namespace accelopt::daemon
