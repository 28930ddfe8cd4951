// EnvTimer (daemon/env_timer.hpp): waits on an Env's clocks. On the real
// clocks it fires after the time asked; on a FakeClockEnv it fires when the
// test moves the clock, however far the deadline, and never before; a
// cancel, a new expiry or the timer's destruction ends a wait with
// operation_aborted.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "daemon/env_timer.hpp"

namespace accelopt::daemon {
namespace {

using namespace std::chrono_literals;

struct TimerLoop {
  boost::asio::io_context ioc;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work = boost::asio::make_work_guard(ioc);
  std::thread thread{[this] { ioc.run(); }};
  ~TimerLoop() {
    work.reset();
    ioc.stop();
    thread.join();
  }
};

// Starts a wait; the future holds its error code.
std::future<boost::system::error_code> StartWait(EnvTimer& t) {
  auto p = std::make_shared<std::promise<boost::system::error_code>>();
  t.AsyncWait([p](boost::system::error_code ec) { p->set_value(ec); });
  return p->get_future();
}

bool ReadyWithin(std::future<boost::system::error_code>& f, std::chrono::milliseconds within) {
  return f.wait_for(within) == std::future_status::ready;
}

BOOST_AUTO_TEST_SUITE(env_timer)

BOOST_AUTO_TEST_CASE(on_the_real_clock_it_fires_after_the_time_asked) {
  TimerLoop loop;
  EnvTimer t(loop.ioc.get_executor(), Env::Default());
  const auto start = std::chrono::steady_clock::now();
  t.ExpiresAfter(50ms);
  auto f = StartWait(t);
  BOOST_REQUIRE(ReadyWithin(f, 10s));
  BOOST_TEST(!f.get());
  BOOST_TEST((std::chrono::steady_clock::now() - start >= 50ms));
  // A wall-clock deadline in the past: at once, with no error.
  t.ExpiresAtWallMicros(Env::Default()->NowMicros() - 1'000'000);
  auto past = StartWait(t);
  BOOST_REQUIRE(ReadyWithin(past, 10s));
  BOOST_TEST(!past.get());
}

BOOST_AUTO_TEST_CASE(on_a_fake_clock_it_fires_when_the_clock_moves_and_not_before) {
  TimerLoop loop;
  FakeClockEnv env(Env::Default());
  EnvTimer mono(loop.ioc.get_executor(), &env);
  mono.ExpiresAfter(1h);
  auto m = StartWait(mono);
  EnvTimer wall(loop.ioc.get_executor(), &env);
  wall.ExpiresAtWallMicros(env.NowMicros() + 2LL * 3600 * 1'000'000);
  auto w = StartWait(wall);
  BOOST_TEST(!ReadyWithin(m, 100ms));  // real time passes; the fake clock does not
  env.Advance(59min);
  BOOST_TEST(!ReadyWithin(m, 50ms));
  env.Advance(1min);
  BOOST_REQUIRE(ReadyWithin(m, 5s));  // an hour of fake time, in milliseconds of real time
  BOOST_TEST(!m.get());
  BOOST_TEST(!ReadyWithin(w, 50ms));
  env.Advance(1h);
  BOOST_REQUIRE(ReadyWithin(w, 5s));
  BOOST_TEST(!w.get());
}

BOOST_AUTO_TEST_CASE(cancel_new_expiry_and_destruction_abort_the_wait) {
  TimerLoop loop;
  FakeClockEnv env(Env::Default());
  EnvTimer t(loop.ioc.get_executor(), &env);
  t.ExpiresAfter(1s);
  auto cancelled = StartWait(t);
  t.Cancel();
  BOOST_REQUIRE(ReadyWithin(cancelled, 5s));
  BOOST_TEST((cancelled.get() == boost::asio::error::operation_aborted));
  // A cancelled wait stays over when the clock then passes its deadline;
  // a new wait on the same deadline fires.
  auto again = StartWait(t);
  t.ExpiresAfter(1h);
  BOOST_REQUIRE(ReadyWithin(again, 5s));
  BOOST_TEST((again.get() == boost::asio::error::operation_aborted));
  auto later = StartWait(t);
  env.Advance(30min);
  BOOST_TEST(!ReadyWithin(later, 50ms));
  env.Advance(30min);
  BOOST_REQUIRE(ReadyWithin(later, 5s));
  BOOST_TEST(!later.get());
  // Destroyed while waiting: aborted, and the handler still runs once.
  auto gone = std::make_unique<EnvTimer>(loop.ioc.get_executor(), &env);
  gone->ExpiresAfter(1h);
  auto g = StartWait(*gone);
  gone.reset();
  BOOST_REQUIRE(ReadyWithin(g, 5s));
  BOOST_TEST((g.get() == boost::asio::error::operation_aborted));
}

BOOST_AUTO_TEST_CASE(a_cancel_from_another_thread_is_safe_while_it_rechecks) {
  // The fake clock makes the timer re-arm every millisecond on the loop's
  // thread while this thread cancels and re-arms it (TSan checks the rest).
  TimerLoop loop;
  FakeClockEnv env(Env::Default());
  EnvTimer t(loop.ioc.get_executor(), &env);
  std::atomic<int> aborted{0};
  for (int i = 0; i < 50; ++i) {
    t.ExpiresAfter(1h);
    auto f = StartWait(t);
    std::this_thread::sleep_for(2ms);
    t.Cancel();
    BOOST_REQUIRE(ReadyWithin(f, 5s));
    if (f.get() == boost::asio::error::operation_aborted) ++aborted;
  }
  BOOST_TEST(aborted.load() == 50);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace accelopt::daemon
