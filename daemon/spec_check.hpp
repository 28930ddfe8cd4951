// The one check of what a campaign will run with: a spec completed from the
// daemon's config (roles with their prices, default search parameters, the
// suite), parsed and validated as a submission is. Used by
// CampaignManager::Submit (and POST /v1/campaigns/check, `acceloptctl submit
// --dry-run`), and by `acceloptd --check-config` and the daemon's start
// (CheckCampaignDefaults), so a config that every submission would refuse is
// refused before the daemon runs, with the same message.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "daemon/config.hpp"
#include "llm/config.hpp"
#include "workflows/campaign_request.hpp"

namespace accelopt::daemon {

// A role's JSON (spec "roles.<role>" form) completed from the config's roles
// and the providers' prices; kInvalidArgument without provider/model.
Result<json> ResolveRole(const DaemonConfig& config, const std::vector<llm::ProviderConfig>& providers,
                         const std::string& role, json overrides);

// The spec with the config's defaults filled in: suite "suites/cpu", the
// three roles (ResolveRole), the default memory bank, the config's search
// parameters under the spec's own.
Result<json> CompleteSpec(const DaemonConfig& config, const std::vector<llm::ProviderConfig>& providers, json spec);

// "provider 'p' has no model 'm' (known: ...); fix: ..." for a model the
// provider does not price; unknown providers too. `providers` must outlive
// the returned function.
workflows::ModelCheck ModelCheckFor(const std::vector<llm::ProviderConfig>& providers);

// CompleteSpec, ParseCampaignSpec and Validate with ModelCheckFor: every
// check of a submission that does not read the problems' files.
Result<workflows::CampaignSpec> CheckSpec(const DaemonConfig& config, const std::vector<llm::ProviderConfig>& providers,
                                          const json& raw_spec);

// What the config sets for every campaign, checked as a submission that
// names only a problem would be: the providers parse, the three roles are
// configured, each role's model is one its provider prices, and the default
// search parameters pass. A config with neither providers nor roles (no
// model: baselines, calibration, the dashboard) passes. The message names the config's field and the fix
// ("search.T: must be an integer (the daemon config's default for every
// campaign; fix \"search\" in the config)").
Status CheckCampaignDefaults(const DaemonConfig& config);

}  // namespace accelopt::daemon
