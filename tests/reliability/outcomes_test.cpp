// Unattended campaigns tell the truth (docs/reliability.md, "Outcomes and
// outages"): black-box through acceloptctl against the fake model server.
// Each case asserts the end state, the exit code and the daemon's log line:
// every call refused (401, 404), a server that stays down (the campaign waits,
// then gives up with the reason), and a 60-second outage with a daemon
// restart in the middle (nothing lost, nothing paid twice, completed).
#include <boost/test/unit_test.hpp>

#include <thread>

#include "base/env.hpp"
#include "tests/reliability/rel_util.hpp"

using namespace accelopt;
using namespace accelopt::testing;
using namespace accelopt::testing::rel;

namespace {

struct Ended {
  int exit_code = -1;
  json summary;
};

// `acceloptctl submit SPEC --wait -o json`: its exit code and the final summary.
Ended SubmitAndWait(const DaemonFixture& f, const json& spec, int timeout_s) {
  const std::string path = WriteJson(f, "spec.json", spec);
  CtlResult r = f.Ctl({"submit", path, "--wait", "-o", "json"}, timeout_s);
  BOOST_TEST_MESSAGE("submit --wait: exit " << r.exit_code << "; stderr: " << r.err);
  Ended e;
  e.exit_code = r.exit_code;
  try {
    e.summary = json::parse(r.out);
  } catch (const std::exception&) {
    BOOST_FAIL("submit --wait -o json printed no summary: " << r.out << r.err);
  }
  return e;
}

bool LogHas(const DaemonFixture& f, const std::string& needle) {
  return ReadFile(f.daemon_log).find(needle) != std::string::npos;
}

std::string Metrics(const DaemonFixture& f) { return f.Http("GET", "/metrics").second; }

// Every call is refused with `status`, an error that fails every call: the
// campaign fails after the first call (not one per iteration: the spec has
// three, one call at a time), with the provider's message and the fix.
void EveryCallRefused(int status, const std::string& must_say, const std::string& fix) {
  DaemonFixture f(AllRequests({{"kind", "status"}, {"status", status}, {"message", "refused by the test"}}));
  f.StartDaemon();
  const auto t0 = std::chrono::steady_clock::now();
  Ended e = SubmitAndWait(f, SmallSpec({"silu"}, 3, 1, 1, 1), 180);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  BOOST_TEST(e.exit_code == 5);  // kExitFailed
  BOOST_TEST(e.summary.value("state", "") == "failed");
  const std::string reason = e.summary.value("reason", "");
  BOOST_TEST(reason.find("from provider 'fake'") != std::string::npos, e.summary.dump());
  BOOST_TEST(reason.find(must_say) != std::string::npos, reason);
  BOOST_TEST(reason.find("refused by the test") != std::string::npos, reason);  // the provider's message
  BOOST_TEST(reason.find("fails every call") != std::string::npos, reason);
  BOOST_TEST(reason.find("stopped after the first such call") != std::string::npos, reason);
  BOOST_TEST(reason.find("fix: " + fix) != std::string::npos, reason);
  const std::string id = e.summary.value("id", "");
  json events = ApiEvents(f, id);
  int failed = 0;
  for (const auto& ev : events) {
    if (ev["type"] != "LlmCallFailed") continue;
    ++failed;
    BOOST_TEST(ev["data"]["attempts"] == 1);  // not retried
  }
  BOOST_TEST(failed == 1);  // the first such call ends it (the old code: one per iteration, 3)
  BOOST_TEST(CountType(events, "IterationStarted") == 1);
  BOOST_TEST(CountType(events, "LlmCallCompleted") == 0);
  BOOST_TEST(CountType(events, "LlmCallWaiting") == 0);  // nothing to wait for
  BOOST_TEST(f.FakeRequests().size() == static_cast<size_t>(failed));
  BOOST_TEST(LogHas(f, "<4>campaign " + id + " ended: failed"));
  BOOST_TEST(Metrics(f).find("accelopt_campaigns_finished_total{status=\"failed\"} 1") != std::string::npos);
  BOOST_TEST_MESSAGE("HTTP " << status << ": failed in " << took << " s: " << reason);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(outcomes)

BOOST_AUTO_TEST_CASE(every_call_401_fails_the_campaign_with_the_providers_error) {
  EveryCallRefused(401, "auth (HTTP 401)", "set a valid API key");
}

BOOST_AUTO_TEST_CASE(every_call_404_fails_the_campaign_with_a_hint) {
  EveryCallRefused(404, "the server answered 404 for /v1/chat/completions", "check the provider's base_url");
}

// A server that stays down: the calls wait (recorded), `get` and `list` say
// so, the provider is probed without a busy loop, and after
// max_provider_wait_s the campaign fails with that reason.
BOOST_AUTO_TEST_CASE(a_provider_that_stays_down_is_waited_for_then_given_up) {
  DaemonFixture f(AllRequests("503"),
                  {{"limits", {{"provider_probe_initial_ms", 200}, {"provider_probe_max_ms", 1000}}}});
  f.StartDaemon();
  json spec = SmallSpec({"silu"}, 2, 1, 2, 1);
  spec["budget"] = {{"max_provider_wait_s", 6}};
  const std::string id = Submit(f, spec);
  // While it waits, the campaign says what for.
  std::string shown;
  for (int i = 0; i < 100 && shown.find("waiting for provider 'fake'") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    shown = f.Ctl({"get", id}).out;
  }
  BOOST_TEST(shown.find("waiting for provider 'fake' since") != std::string::npos, shown);
  BOOST_TEST(shown.find("HTTP 503") != std::string::npos, shown);
  BOOST_TEST(f.Ctl({"list"}).out.find("waiting for provider 'fake'") != std::string::npos);
  BOOST_TEST(Metrics(f).find("accelopt_llm_provider_available{provider=\"fake\"} 0") != std::string::npos);
  CtlResult w = f.Ctl({"wait", id}, 120);
  BOOST_TEST(w.exit_code == 5);
  json summary = json::parse(f.Ctl({"get", id, "-o", "json"}).out);
  BOOST_TEST(summary["state"] == "failed");
  const std::string reason = summary.value("reason", "");
  BOOST_TEST(reason.find("provider 'fake' unavailable since") != std::string::npos, reason);
  BOOST_TEST(reason.find("gave up at max_provider_wait_s") != std::string::npos, reason);
  BOOST_TEST(summary["waiting"].empty());
  json events = ApiEvents(f, id);
  // Outages do not fail activities: they wait (and a probe still out when
  // the campaign gives up is not recorded as a failure either).
  BOOST_TEST(CountType(events, "LlmCallFailed") == 0);
  for (const auto& ev : events)
    if (ev["type"] == "LlmCallFailed") BOOST_TEST_MESSAGE("LlmCallFailed: " << ev.dump());
  const int waits = CountType(events, "LlmCallWaiting");
  BOOST_TEST(waits >= 2);
  // Every request is an attempt recorded in an event, and while the provider
  // is down only the probe goes out: no busy loop.
  int attempts = 0;
  for (const auto& e : events)
    if (e["type"] == "LlmCallWaiting") attempts += e["data"]["attempts"].get<int>();
  const size_t received = f.FakeRequests().size();
  // The probe in flight when the campaign gave up is cancelled unrecorded:
  // at most its attempts (max_attempts 3) are missing from the events.
  BOOST_TEST(received >= static_cast<size_t>(attempts));
  BOOST_TEST(received <= static_cast<size_t>(attempts) + 3u);
  BOOST_TEST(received <= 3u * 20u, received << " requests in 6 s");
  std::this_thread::sleep_for(std::chrono::seconds(2));
  BOOST_TEST(f.FakeRequests().size() == received);  // nothing after the end
  BOOST_TEST(LogHas(f, "<4>campaign " + id + ": waiting for provider 'fake'"));
  BOOST_TEST(LogHas(f, "<4>campaign " + id + " ended: failed"));
}

// The model server goes away for 60 s and the daemon is restarted in the
// middle of it: the campaign waits it out and completes; no call is lost
// (each has exactly one completion) and none is paid twice (the restarted
// server only sees calls that were still open).
BOOST_AUTO_TEST_CASE(a_60_second_outage_with_a_daemon_restart_loses_nothing) {
  DaemonFixture f(UniquePlanScript(200, 100),
                  {{"limits", {{"provider_probe_initial_ms", 500}, {"provider_probe_max_ms", 4000}}}});
  f.StartDaemon();
  const std::string id = Submit(f, SmallSpec({"silu"}, 3, 1, 2, 1));
  // The outage starts after the first answered call.
  for (int i = 0; i < 300; ++i) {
    if (CountType(ApiEvents(f, id), "LlmCallCompleted") >= 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  BOOST_REQUIRE(CountType(ApiEvents(f, id), "LlmCallCompleted") >= 1);
  json requests = f.FakeRequests();
  f.StopFake();
  const auto down = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(20));
  BOOST_TEST(f.Ctl({"get", id}).out.find("waiting for provider 'fake'") != std::string::npos);
  // Restart the daemon during the outage; it keeps waiting (since the first wait).
  BOOST_REQUIRE_EQUAL(f.StopDaemon(), 0);
  f.StartDaemon();
  std::this_thread::sleep_for(std::chrono::seconds(5));
  json during = json::parse(f.Ctl({"get", id, "-o", "json"}).out);
  BOOST_TEST(during["state"] == "running");
  BOOST_TEST(!during["waiting"].empty(), during.dump());
  std::this_thread::sleep_until(down + std::chrono::seconds(60));
  const int64_t back_us = Env::Default()->NowMicros();
  f.RestartFake();
  BOOST_REQUIRE_EQUAL(WaitFinished(f, id, std::chrono::seconds(300)), "completed");
  const double outage_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - down).count();
  json events = ApiEvents(f, id);
  BOOST_TEST(CountType(events, "LlmCallFailed") == 0);
  for (const auto& ev : events)  // why, when one did (a call must wait out an outage, not fail)
    if (ev["type"] == "LlmCallFailed") BOOST_TEST_MESSAGE("LlmCallFailed: " << ev.dump());
  BOOST_TEST(CountType(events, "LlmCallWaiting") >= 1);
  // No call lost: every LLM activity completed exactly once.
  RequestAudit audit;
  json all = requests;
  const size_t first = requests.size();
  for (const auto& r : f.FakeRequests()) all.push_back(r);
  audit = AuditRequests(events, all, {back_us}, {first, all.size()});
  for (const auto& [activity, n] : audit.completions) BOOST_TEST(n == 1, activity << " completed " << n << " times");
  // None paid twice: after the outage the server only saw open calls.
  BOOST_TEST(audit.repeats == 0u);
  for (const auto& d : audit.details) BOOST_TEST_MESSAGE(d);
  BOOST_TEST(audit.unknown == 0u);
  json summary = json::parse(f.Ctl({"get", id, "-o", "json"}).out);
  BOOST_TEST(summary["waiting"].empty());
  BOOST_TEST(LogHas(f, "still waiting for provider 'fake' since"));
  BOOST_TEST_MESSAGE("outage test: completed " << outage_s << " s after the server went down; "
                                               << CountType(events, "LlmCallWaiting") << " deferred calls, "
                                               << audit.completions.size() << " LLM activities");
}

// A server that sends no usage: tokens are estimated (marked so in the
// events and the report, one warning per provider) and the cost budget
// holds on the estimate instead of never triggering.
BOOST_AUTO_TEST_CASE(replies_without_usage_are_estimated_and_budgets_hold) {
  json script = StandardScript(0);
  for (auto& r : script["rules"])
    if (r.contains("reply")) r["reply"]["no_usage"] = true;
  DaemonFixture f(script);
  f.StartDaemon();
  json spec = SmallSpec({"silu"}, 4, 1, 2, 1);
  // The fixture prices fake-model at $1 / $2 per Mtok; a reservation is ~$0.04
  // (max_tokens of output), an estimated call ~$0.002: a few calls fit.
  spec["budget"] = {{"max_cost_usd", 0.045}};
  Ended e = SubmitAndWait(f, spec, 240);
  BOOST_TEST(e.exit_code == 8);  // kExitBudget: the cap triggered on estimates
  BOOST_TEST(e.summary.value("state", "") == "budget_exhausted");
  const std::string id = e.summary.value("id", "");
  json events = ApiEvents(f, id);
  int completed = 0;
  for (const auto& ev : events) {
    if (ev["type"] != "LlmCallCompleted") continue;
    ++completed;
    BOOST_TEST(ev["data"]["usage_source"] == "estimate");
    BOOST_TEST(ev["data"]["cost_source"] == "estimate");
    BOOST_TEST(ev["data"]["usage"]["input_tokens"].get<int64_t>() > 100);
    BOOST_TEST(ev["data"]["cost_usd"].get<double>() > 0);
  }
  BOOST_TEST(completed > 0);
  json report = json::parse(f.Ctl({"report", id, "-o", "json"}).out);
  BOOST_TEST(report["usage"]["total"]["cost_sources"]["estimate"].get<int>() == completed);
  BOOST_TEST(report["usage"]["total"]["cost_usd"].get<double>() > 0);
  const std::string text = f.Ctl({"report", id}).out;
  BOOST_TEST(text.find("estimate " + std::to_string(completed)) != std::string::npos, text);
  // One warning for the provider, not one per call.
  const std::string log = ReadFile(f.daemon_log);
  const std::string warning = "provider 'fake' returned a reply without usage";
  BOOST_TEST(log.find(warning) != std::string::npos);
  BOOST_TEST(log.find(warning) == log.rfind(warning));
}

BOOST_AUTO_TEST_SUITE_END()
