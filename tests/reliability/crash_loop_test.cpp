// Crash loop: acceloptd is SIGKILLed at random moments during a campaign and
// restarted each time. Every event a client read survives unchanged, versions
// stay contiguous, no LLM call whose completion was already recorded reaches
// the (fake) provider again, the campaign completes, and its best kernels
// pass a fresh evaluation.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "tests/reliability/rel_util.hpp"

using namespace accelopt;
using namespace accelopt::testing;
using namespace accelopt::testing::rel;

BOOST_AUTO_TEST_CASE(sigkill_loop_loses_nothing_acknowledged_and_repeats_no_recorded_call) {
  const int scale = StressScale();
  const int kills = 10 * scale;
  uint32_t seed = std::random_device{}();
  BOOST_TEST_MESSAGE("crash loop: " << kills << " kills, seed " << seed);
  std::mt19937 rng(seed);

  DaemonFixture f(UniquePlanScript(500, 2000 * scale));
  f.StartDaemon();
  // Long enough to outlast the kills: 6 at scale 1 (10 kills), 60 at scale 10.
  const int T = IterationsToOutlast(kills, 2.5, 3 + 2 * scale);
  BOOST_TEST_MESSAGE("crash loop: T = " << T);
  std::string id = Submit(f, SmallSpec({"matmul", "silu"}, T, 2, 2, 1));

  WaitForEvaluations(f, id, 2, std::chrono::seconds(300));  // the baselines: the judge builds are cached

  Acknowledged acknowledged;
  std::vector<int64_t> kill_us;    // wall clock just before each SIGKILL
  std::vector<size_t> fake_count;  // requests the fake server had seen after each kill
  int done = 0;
  std::uniform_int_distribution<int> interval_ms(100, 1500);
  for (; done < kills; ++done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms(rng)));
    acknowledged.Record(ApiEvents(f, id));
    std::string state = State(f, id);
    if (state != "running") {
      BOOST_TEST_MESSAGE("campaign " << state << " after " << done << " kills");
      break;
    }
    kill_us.push_back(NowUs());
    f.KillDaemon();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // requests in transit land
    fake_count.push_back(f.FakeRequests().size());
    f.StartDaemon();
  }
  // The campaign went on between kills (at least one event per interruption on average).
  BOOST_TEST(acknowledged.size() >= static_cast<size_t>(kills),
             "only " << acknowledged.size() << " events while the daemon was interrupted " << done << " times");
  BOOST_TEST(done >= kills, "the campaign finished after only " << done << " of " << kills << " kills");

  std::string final_state = WaitFinished(f, id, std::chrono::seconds(400 + 20 * T));
  BOOST_REQUIRE_EQUAL(final_state, "completed");
  json events = ApiEvents(f, id);

  // Contiguous versions; every acknowledged event is still there, unchanged.
  for (size_t i = 0; i < events.size(); ++i) BOOST_TEST(events[i]["version"].get<size_t>() == i + 1);
  const size_t lost = acknowledged.LostIn(events);
  BOOST_TEST(lost == 0u, lost << " of " << acknowledged.size() << " acknowledged events lost or changed");
  BOOST_TEST_MESSAGE(acknowledged.size() << " acknowledged events checked, " << events.size() << " in the end");

  json requests = f.FakeRequests();
  fake_count.push_back(requests.size());
  RequestAudit audit = AuditRequests(events, requests, kill_us, fake_count);
  for (const auto& line : audit.details) BOOST_TEST_MESSAGE(line);
  for (const auto& [a, n] : audit.completions) BOOST_TEST(n == 1, a << " completed " << n << " times");
  BOOST_TEST(CountType(events, "LlmCallFailed") == 0);
  BOOST_TEST(audit.unknown == 0u, audit.unknown << " requests match no scheduled activity's prompt");
  BOOST_TEST(audit.repeats == 0u, audit.repeats << " requests repeated a call whose reply was already recorded");
  BOOST_TEST(requests.size() >= audit.completions.size());
  BOOST_TEST_MESSAGE(done << " kills survived; " << requests.size() << " requests for " << audit.completions.size()
                          << " LLM activities, " << audit.repeats << " repeated");

  // The best kernels pass a fresh evaluation.
  std::string out = f.dir + "/best";
  auto best = f.Ctl({"best", id, "--out", out});
  BOOST_REQUIRE_EQUAL(best.exit_code, 0);
  for (std::string p : {"matmul", "silu"}) {
    std::string kernel = out + "/" + p + ".cpp";
    BOOST_REQUIRE(std::filesystem::exists(kernel));
    auto [code, text] = FreshEvaluation(SourceDir() + "/tests/evaluators/problems/" + p, kernel);
    BOOST_TEST(code == 0, p << ": fresh evaluation failed: " << text.substr(0, 2000));
  }
  BOOST_TEST(f.StopDaemon() == 0);
}
