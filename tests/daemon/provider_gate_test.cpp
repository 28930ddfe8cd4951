// ProviderGate (daemon/provider_gate.hpp): calls go at once while a provider
// answers; after an outage they wait, one of them at a time goes out as the
// probe after a backoff that doubles up to its cap, and the first answer
// releases them all. Runs a real io_context with millisecond backoffs.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "daemon/provider_gate.hpp"

namespace accelopt::daemon {
namespace {

using namespace std::chrono_literals;

struct Gate {
  boost::asio::io_context ioc;
  ProviderGate gate{ioc, Env::Default(), ProviderGate::Options{20ms, 80ms}};
  std::vector<uint64_t> went;  // tickets in the order their go ran
  uint64_t Enter(const std::string& provider) {
    auto ticket = std::make_shared<uint64_t>(0);
    *ticket = gate.Enter(provider, [this, ticket] { went.push_back(*ticket); });
    return *ticket;
  }
  // Runs the io_context for `d` (timers and posted go callbacks).
  void Run(std::chrono::milliseconds d) {
    ioc.restart();
    ioc.run_for(d);
  }
};

BOOST_AUTO_TEST_SUITE(provider_gate)

BOOST_AUTO_TEST_CASE(available_providers_send_at_once) {
  Gate g;
  const uint64_t a = g.Enter("p"), b = g.Enter("p");
  g.Run(5ms);
  BOOST_TEST(g.went == (std::vector<uint64_t>{a, b}));
  BOOST_TEST(g.gate.State("p").available);
}

BOOST_AUTO_TEST_CASE(an_outage_holds_calls_and_probes_one_at_a_time) {
  Gate g;
  const uint64_t a = g.Enter("p");
  g.Run(5ms);
  g.gate.Unavailable(a, "network from provider 'p'");
  BOOST_TEST(!g.gate.State("p").available);
  BOOST_TEST(g.gate.State("p").last_error == "network from provider 'p'");
  // The failed call and two more wait; only the first goes, after the backoff.
  const uint64_t a2 = g.Enter("p"), b = g.Enter("p"), c = g.Enter("p");
  g.went.clear();
  g.Run(5ms);
  BOOST_TEST(g.went.empty());  // not before the backoff
  BOOST_TEST(g.gate.State("p").waiting == 3);
  g.Run(60ms);
  BOOST_TEST(g.went == (std::vector<uint64_t>{a2}));  // the probe, alone
  // The probe fails: the next probe waits twice as long (40 ms), and only one goes.
  g.gate.Unavailable(a2, "still down");
  const uint64_t a3 = g.Enter("p");
  g.went.clear();
  g.Run(25ms);
  BOOST_TEST(g.went.empty());
  g.Run(60ms);
  BOOST_TEST(g.went.size() == 1u);
  const uint64_t probe = g.went[0];
  BOOST_TEST(probe == b);  // FIFO: the oldest waiting call probes
  // It answers: the provider is back and every waiting call goes.
  g.gate.Answered(probe);
  g.went.clear();
  g.Run(5ms);
  BOOST_TEST(g.gate.State("p").available);
  BOOST_TEST(g.went == (std::vector<uint64_t>{c, a3}));
  BOOST_TEST(g.gate.State("p").waiting == 0);
}

BOOST_AUTO_TEST_CASE(a_withdrawn_call_never_goes_and_a_withdrawn_probe_hands_over) {
  Gate g;
  const uint64_t a = g.Enter("p");
  g.Run(5ms);
  g.gate.Unavailable(a, "down");
  const uint64_t b = g.Enter("p"), c = g.Enter("p");
  BOOST_TEST(g.gate.Withdraw(c));  // still waiting: its go will never run
  g.went.clear();
  g.Run(60ms);
  BOOST_TEST(g.went == (std::vector<uint64_t>{b}));  // b probes
  BOOST_TEST(!g.gate.Withdraw(b));                   // already sent
  const uint64_t d = g.Enter("p");
  g.went.clear();
  g.Run(120ms);
  BOOST_TEST(g.went == (std::vector<uint64_t>{d}));  // the withdrawn probe handed over
  // Another provider is not affected.
  const uint64_t other = g.Enter("q");
  g.went.clear();
  g.Run(5ms);
  BOOST_TEST(g.went == (std::vector<uint64_t>{other}));
}

BOOST_AUTO_TEST_CASE(the_backoff_is_on_the_envs_clock) {
  // A one-minute backoff on a fake clock: real time does not end it,
  // moving the clock a minute does.
  FakeClockEnv fake(Env::Default());
  boost::asio::io_context ioc;
  ProviderGate gate{ioc, &fake, ProviderGate::Options{60s, 600s}};
  std::vector<uint64_t> went;
  auto enter = [&] {
    auto ticket = std::make_shared<uint64_t>(0);
    *ticket = gate.Enter("p", [&went, ticket] { went.push_back(*ticket); });
    return *ticket;
  };
  const uint64_t a = enter();
  ioc.run_for(5ms);
  gate.Unavailable(a, "down");
  const uint64_t b = enter();
  went.clear();
  ioc.restart();
  ioc.run_for(100ms);
  BOOST_TEST(went.empty());
  fake.Advance(59s);
  ioc.restart();
  ioc.run_for(20ms);
  BOOST_TEST(went.empty());
  fake.Advance(1s);
  ioc.restart();
  ioc.run_for(50ms);
  BOOST_TEST(went == (std::vector<uint64_t>{b}));  // the probe, a minute of fake time later
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace accelopt::daemon
