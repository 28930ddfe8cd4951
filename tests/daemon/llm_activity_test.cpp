// The LLM-activity adapter (daemon/llm_activity.hpp): an activity's recorded
// request becomes the same llm::LlmRequest (and RequestHash) that the
// campaign runner built by hand before, for both runners.
#include <boost/test/unit_test.hpp>

#include "daemon/llm_activity.hpp"

namespace accelopt::daemon {
namespace {

workflows::ActivityRequest Activity(json reasoning) {
  return {"c1/p0/it0/plan/b0/n0",
          workflows::ActivityKind::kLlm,
          "planner",
          {{"provider", "fake"},
           {"model", "m"},
           {"temperature", 0.7},
           {"max_tokens", 1024},
           {"reasoning", std::move(reasoning)},
           {"system", "sys"},
           {"user", "usr"}}};
}

BOOST_AUTO_TEST_SUITE(llm_activity)

BOOST_AUTO_TEST_CASE(a_recorded_request_is_the_request_sent) {
  auto r = LlmRequestOf(Activity("high"));
  BOOST_REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  llm::LlmRequest want;
  want.provider = "fake";
  want.model = "m";
  want.system = "sys";
  want.user = "usr";
  want.temperature = 0.7;
  want.max_tokens = 1024;
  want.reasoning_effort = "high";
  want.request_id = "c1/p0/it0/plan/b0/n0";
  BOOST_TEST(llm::ToJson(*r) == llm::ToJson(want));
  BOOST_TEST(llm::RequestHash(*r) == llm::RequestHash(want));

  auto budget = LlmRequestOf(Activity(2048));
  BOOST_REQUIRE(budget.ok());
  BOOST_TEST(!budget->reasoning_effort.has_value());
  BOOST_TEST(budget->thinking_budget.value_or(0) == 2048);
  auto none = LlmRequestOf(Activity(nullptr));
  BOOST_REQUIRE(none.ok());
  BOOST_TEST(!none->reasoning_effort.has_value());
  BOOST_TEST(!none->thinking_budget.has_value());
}

BOOST_AUTO_TEST_CASE(defaults_and_malformed_requests) {
  workflows::ActivityRequest a = Activity(nullptr);
  a.request.erase("max_tokens");
  a.request["temperature"] = nullptr;
  a.request.erase("system");
  auto r = LlmRequestOf(a);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->max_tokens == 4096);
  BOOST_TEST(!r->temperature.has_value());
  BOOST_TEST(r->system.empty());
  for (const char* key : {"provider", "model", "user"}) {
    workflows::ActivityRequest bad = Activity(nullptr);
    bad.request.erase(key);
    auto e = LlmRequestOf(bad);
    BOOST_TEST(e.status().code() == Code::kInvalidArgument);
    BOOST_TEST(e.status().message().find(key) != std::string::npos, e.status().message());
  }
  workflows::ActivityRequest wrong = Activity(nullptr);
  wrong.request["max_tokens"] = "many";
  BOOST_TEST(LlmRequestOf(wrong).status().code() == Code::kInvalidArgument);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace accelopt::daemon
