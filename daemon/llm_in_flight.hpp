// How many LLM calls one campaign may have in flight at once, from the
// providers' limits: LlmInFlightPerCampaign (a fixed share, the cap while
// other campaigns run) and LlmShare (what the runners use).
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

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "daemon/config.hpp"
#include "llm/config.hpp"

namespace accelopt::daemon {

int LlmInFlightPerCampaign(const std::vector<llm::ProviderConfig>& providers,
                           const std::map<std::string, RoleConfig>& roles, double share, int explicit_cap);

// The cap as the campaigns come and go (what the runners use): a campaign
// alone may use every slot of its providers; while n campaigns are active
// each may have ceil(slots / n) in flight, and never more than `share` of
// the slots (so a slow campaign cannot hold more than its part of the
// provider: campaign_bench's fairness figure). `explicit_cap` > 0 fixes it.
// Thread-safe (an atomic count).
class LlmShare {
 public:
  LlmShare(int slots, double share, int explicit_cap)
      : slots_(std::max(1, slots)), share_(share), explicit_(explicit_cap) {}
  void CampaignStarted() { active_.fetch_add(1); }
  void CampaignEnded() { active_.fetch_sub(1); }
  int Active() const { return active_.load(); }
  // For a campaign that is one of the active ones.
  int PerCampaign() const;

 private:
  const int slots_;
  const double share_;
  const int explicit_;
  std::atomic<int> active_{0};
};

}  // namespace accelopt::daemon
