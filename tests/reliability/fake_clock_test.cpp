// The whole daemon on a fake clock (acceloptd-fakeclock,
// fakeclock_daemon.cpp): its runtime timers follow the Env's clock. A
// campaign whose provider is down waits; while the fake clock stands still
// no probe goes out (the backoff is 200 ms of fake time) and the one-hour
// max_provider_wait_s does not pass however long the test waits; one move
// of the clock by an hour gives up the campaign at once, with the reason.
// Against timers on the real clock this fails both ways: probes every
// fraction of a second, and no end for an hour.
#include <signal.h>

#include <boost/test/unit_test.hpp>
#include <thread>

#include "tests/reliability/rel_util.hpp"

using namespace accelopt;
using namespace accelopt::testing;
using namespace accelopt::testing::rel;

BOOST_AUTO_TEST_CASE(on_a_fake_clock_the_provider_wait_ends_when_the_clock_moves) {
  DaemonFixture f(AllRequests("503"),
                  {{"limits", {{"provider_probe_initial_ms", 200}, {"provider_probe_max_ms", 1000}}}});
  f.daemon_path = ACCELOPTD_FAKECLOCK_PATH;
  f.StartDaemon();
  json spec = SmallSpec({"silu"}, 2, 1, 2, 1);
  spec["budget"] = {{"max_provider_wait_s", 3600}};
  const std::string id = Submit(f, spec);
  std::string shown;
  for (int i = 0; i < 300 && shown.find("waiting for provider 'fake'") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    shown = f.Ctl({"get", id}).out;
  }
  BOOST_REQUIRE_MESSAGE(shown.find("waiting for provider 'fake' since") != std::string::npos, shown);
  // The calls sent before the outage was known finish their own retries
  // (the HTTP client's, on the real clock); then real time passes and the
  // fake clock does not: no probe, no end.
  size_t before = f.FakeRequests().size();
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const size_t now = f.FakeRequests().size();
    if (now == before) break;
    before = now;
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));
  BOOST_TEST(f.FakeRequests().size() == before,
             "probes went out on the real clock: " << before << " then " << f.FakeRequests().size() << " requests");
  BOOST_TEST(State(f, id) == "running");
  // An hour of fake time: the limit has passed.
  f.daemon.Signal(SIGUSR1);
  CtlResult w = f.Ctl({"wait", id}, 60);
  BOOST_TEST(w.exit_code == 5, w.out << w.err);
  json summary = json::parse(f.Ctl({"get", id, "-o", "json"}).out);
  BOOST_TEST(summary["state"] == "failed");
  const std::string reason = summary.value("reason", "");
  BOOST_TEST(reason.find("gave up at max_provider_wait_s 3600 s") != std::string::npos, reason);
}
