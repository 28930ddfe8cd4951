// How many LLM calls one campaign may have in flight at once
// (RuntimeServices::max_llm_in_flight), from the providers' limits.
//
// Each provider bounds its own calls (`max_concurrency`, llm/config.hpp);
// the per-campaign cap only keeps one campaign from taking every slot while
// others wait. Default: `share` (limits.llm_share_per_campaign, 0.5) of the
// slots of the providers the daemon's roles use (every provider when no
// role names one), rounded up, at least 1. So a 16-slot provider lets a
// campaign run 8 calls at once with the default share and all 16 with
// share 1; before, every campaign had a fixed 8 whatever the providers
// allowed. `explicit_cap` > 0 (limits.max_llm_in_flight_per_campaign)
// overrides it.
//
// Pure function; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "daemon/config.hpp"
#include "llm/config.hpp"

namespace accelopt::daemon {

int LlmInFlightPerCampaign(const std::vector<llm::ProviderConfig>& providers,
                           const std::map<std::string, RoleConfig>& roles, double share, int explicit_cap);

}  // namespace accelopt::daemon
