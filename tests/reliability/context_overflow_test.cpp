// A prompt over the model's context window (llama.cpp answers HTTP 400
// "exceeds the available context size"), black-box through the daemon on
// the fake model server: the call is sent once more with a shorter prompt
// (workflows/prompt_shorten.hpp), recorded as LlmCallShortened before it is
// sent; still too long, it fails with the server's words.
#include <boost/test/unit_test.hpp>

#include "tests/reliability/rel_util.hpp"

using namespace accelopt;
using namespace accelopt::testing;
using namespace accelopt::testing::rel;

namespace overflow_impl {

const char kOverflow[] = "the request exceeds the available context size, try increasing it";

// StandardScript with `rule` tried first.
json ScriptWithFirst(const json& rule) {
  json script = StandardScript(0);
  script["rules"].insert(script["rules"].begin(), rule);
  return script;
}

json OverflowRule(const std::string& name, const json& match) {
  return {{"name", name}, {"match", match}, {"fault", {{"kind", "status"}, {"status", 400}, {"message", kOverflow}}}};
}

// `acceloptctl submit SPEC --wait -o json`: its exit code and summary.
std::pair<int, json> SubmitWaiting(const DaemonFixture& f, const json& spec) {
  const std::string path = WriteJson(f, "spec.json", spec);
  CtlResult r = f.Ctl({"submit", path, "--wait", "-o", "json"}, 240);
  BOOST_TEST_MESSAGE("submit --wait: exit " << r.exit_code << "; stderr: " << r.err);
  json summary;
  try {
    summary = json::parse(r.out);
  } catch (const std::exception&) {
    BOOST_FAIL("submit --wait -o json printed no summary: " << r.out << r.err);
  }
  return {r.exit_code, summary};
}

int RequestsOfRule(const json& requests, const std::string& rule) {
  int n = 0;
  for (const auto& q : requests) n += q.value("rule", json()) == rule;
  return n;
}

}  // namespace overflow_impl

using namespace overflow_impl;

BOOST_AUTO_TEST_SUITE(context_overflow)

// Every planner prompt with its profile is too long; without it, it fits.
BOOST_AUTO_TEST_CASE(a_prompt_over_the_context_window_is_sent_once_more_shorter) {
  DaemonFixture f(
      ScriptWithFirst(OverflowRule("overflow", {{"system_contains", "planning the next optimization"},
                                                {"user_contains", "## Profile of the current kernel\n- "}})));
  f.StartDaemon();
  auto [exit_code, summary] = SubmitWaiting(f, SmallSpec({"silu"}, 2, 1, 2, 1));
  BOOST_TEST(exit_code == 0, summary.dump());
  BOOST_TEST(summary.value("state", "") == "completed");
  const std::string id = summary.value("id", "");
  const json events = ApiEvents(f, id);
  int shortened = 0, plans = 0;
  for (const auto& ev : events) {
    if (ev["type"] == "LlmCallShortened") {
      ++shortened;
      const json& d = ev["data"];
      BOOST_TEST(d["error_kind"] == "context_overflow");
      BOOST_TEST(d["error"].get<std::string>().find(kOverflow) != std::string::npos, d.dump());
      BOOST_TEST(d["trimmed"].dump().find("profile") != std::string::npos, d.dump());
      BOOST_TEST(d["bytes_after"].get<int64_t>() < d["bytes_before"].get<int64_t>());
    }
    if (ev["type"] == "PlanProposed") {
      ++plans;
      BOOST_TEST(ev["data"]["ok"] == true, ev.dump());
    }
    if (ev["type"] == "LlmCallFailed") BOOST_TEST(ev["data"].value("error_kind", "") != "context_overflow");
  }
  BOOST_TEST(plans == 4);  // T=2 x N=2, every one planned on the shorter prompt
  BOOST_TEST(shortened == plans);
  const json requests = f.FakeRequests();
  BOOST_TEST(RequestsOfRule(requests, "overflow") == shortened);  // each refused once, none again
  BOOST_TEST(RequestsOfRule(requests, "plan") == plans);
  for (const auto& q : requests) {
    if (q.value("rule", json()) == "plan") {
      BOOST_TEST(q["user"].get<std::string>().find("(left out: the prompt was over the model's context window)") !=
                 std::string::npos);
    }
  }
}

// Every executor prompt is too long, shortened or not: one shorter try each,
// then the call fails with the server's words.
BOOST_AUTO_TEST_CASE(still_too_long_the_call_fails_with_the_servers_words) {
  DaemonFixture f(ScriptWithFirst(OverflowRule("overflow", {{"system_contains", "implements one optimization plan"}})));
  f.StartDaemon();
  auto [exit_code, summary] = SubmitWaiting(f, SmallSpec({"silu"}, 1, 1, 1, 1));
  BOOST_TEST(exit_code != 0, summary.dump());  // no candidate could be written
  const std::string id = summary.value("id", "");
  const json events = ApiEvents(f, id);
  int shortened = 0, failed = 0;
  for (const auto& ev : events) {
    if (ev["type"] == "LlmCallShortened") {
      ++shortened;
      BOOST_TEST(ev["data"]["trimmed"].dump().find("hardware") != std::string::npos, ev.dump());
    }
    if (ev["type"] == "LlmCallFailed") {
      ++failed;
      BOOST_TEST(ev["data"]["error_kind"] == "context_overflow");
      BOOST_TEST(ev["data"]["shortened"] == true);
      BOOST_TEST(ev["data"]["error"].get<std::string>().find(kOverflow) != std::string::npos, ev.dump());
    }
  }
  BOOST_TEST(failed >= 1);
  BOOST_TEST(shortened == failed);
  BOOST_TEST(RequestsOfRule(f.FakeRequests(), "overflow") == 2 * failed);  // the first try and the shorter one
}

BOOST_AUTO_TEST_SUITE_END()
