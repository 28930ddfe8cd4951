// LlmInFlightPerCampaign (daemon/llm_in_flight.hpp): the per-campaign cap on
// LLM calls follows the providers' max_concurrency, not a constant 8.
#include <boost/test/unit_test.hpp>

#include "daemon/llm_in_flight.hpp"

using namespace accelopt;
using namespace accelopt::daemon;

namespace {
llm::ProviderConfig Provider(const std::string& name, int slots) {
  llm::ProviderConfig p;
  p.name = name;
  p.max_concurrency = slots;
  return p;
}
std::map<std::string, RoleConfig> Roles(const std::string& provider) {
  RoleConfig r;
  r.provider = provider;
  return {{"planner", r}, {"executor", r}, {"summarizer", r}};
}
}  // namespace

BOOST_AUTO_TEST_CASE(llm_calls_in_flight_per_campaign_follow_the_providers) {
  // One 16-slot provider: all 16 with share 1 (the measurement had 8 binding).
  BOOST_TEST(LlmInFlightPerCampaign({Provider("fast", 16)}, Roles("fast"), 1.0, 0) == 16);
  BOOST_TEST(LlmInFlightPerCampaign({Provider("fast", 16)}, Roles("fast"), 0.5, 0) == 8);
  BOOST_TEST(LlmInFlightPerCampaign({Provider("big", 64)}, Roles("big"), 0.5, 0) == 32);
  // Only the providers the roles use count.
  BOOST_TEST(LlmInFlightPerCampaign({Provider("a", 4), Provider("b", 100)}, Roles("a"), 1.0, 0) == 4);
  // Rounded up, at least one.
  BOOST_TEST(LlmInFlightPerCampaign({Provider("one", 1)}, Roles("one"), 0.5, 0) == 1);
  BOOST_TEST(LlmInFlightPerCampaign({Provider("three", 3)}, Roles("three"), 0.5, 0) == 2);
  // The explicit setting wins.
  BOOST_TEST(LlmInFlightPerCampaign({Provider("fast", 16)}, Roles("fast"), 0.5, 24) == 24);
}

// A campaign alone uses every slot; while others run each has slots / n, and
// never more than the share; a fixed cap is fixed.
BOOST_AUTO_TEST_CASE(llm_share_follows_the_active_campaigns) {
  LlmShare share(64, 0.5, 0);
  share.CampaignStarted();
  BOOST_TEST(share.PerCampaign() == 64);
  share.CampaignStarted();
  BOOST_TEST(share.PerCampaign() == 32);
  share.CampaignStarted();
  BOOST_TEST(share.PerCampaign() == 22);  // ceil(64 / 3), under the share
  share.CampaignStarted();
  BOOST_TEST(share.PerCampaign() == 16);
  for (int i = 0; i < 3; ++i) share.CampaignEnded();
  BOOST_TEST(share.PerCampaign() == 64);  // alone again
  LlmShare quarter(64, 0.25, 0);
  quarter.CampaignStarted();
  quarter.CampaignStarted();
  BOOST_TEST(quarter.PerCampaign() == 16);  // the share binds before slots / 2
  LlmShare fixed(64, 0.5, 5);
  BOOST_TEST(fixed.PerCampaign() == 5);
  LlmShare one(1, 0.5, 0);
  one.CampaignStarted();
  one.CampaignStarted();
  BOOST_TEST(one.PerCampaign() == 1);
}
