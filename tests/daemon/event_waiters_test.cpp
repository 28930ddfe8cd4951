// EventWaiters: a long-poll wakes on the next append to its stream, at once
// when the stream is already past it, and at its deadline otherwise; appends
// to other streams do not wake it.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <future>
#include <thread>

#include "daemon/event_waiters.hpp"

using namespace accelopt;
namespace fs = std::filesystem;

namespace {

struct WaitersFixture {
  explicit WaitersFixture(Env* clock = Env::Default()) : env(clock) {
    dir = fs::temp_directory_path() / ("accelopt-waiters-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    store::EventLog::Options o;
    o.create_if_missing = true;
    auto opened = store::EventLog::Open(dir.string(), o);
    BOOST_REQUIRE_MESSAGE(opened.ok(), opened.status().ToString());
    log = std::move(*opened);
    waiters = std::make_unique<daemon::EventWaiters>(log.get(), &ioc, env);
    thread = std::thread([this] { ioc.run(); });
  }
  ~WaitersFixture() {
    work.reset();
    ioc.stop();
    thread.join();
    waiters.reset();
    log->Close();
    fs::remove_all(dir);
  }
  void Append(const std::string& stream) {
    store::StreamAppend a;
    a.stream = stream;
    a.events.push_back(store::NewEvent{"T", 0, json::object(), {}, {}});
    BOOST_REQUIRE(log->Append({std::move(a)}).ok());
  }
  std::future<void> Wait(const std::string& stream, uint64_t after, std::chrono::milliseconds in) {
    auto p = std::make_shared<std::promise<void>>();
    waiters->Wait(stream, after, env->MonotonicNanos() + std::chrono::nanoseconds(in).count(), [p] { p->set_value(); });
    return p->get_future();
  }

  Env* env;  // the deadlines' clock
  fs::path dir;
  boost::asio::io_context ioc;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work = boost::asio::make_work_guard(ioc);
  std::unique_ptr<store::EventLog> log;
  std::unique_ptr<daemon::EventWaiters> waiters;
  std::thread thread;
};

// The same on a clock the test moves.
struct WaitersClock {
  FakeClockEnv fake{Env::Default()};
};
struct FakeClockWaitersFixture : WaitersClock, WaitersFixture {
  FakeClockWaitersFixture() : WaitersFixture(&fake) {}
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_long_polls_deadline_is_on_the_envs_clock, FakeClockWaitersFixture) {
  using namespace std::chrono_literals;
  // A 60 s long-poll on a fake clock: real time does not end it, moving the
  // clock past its deadline does.
  auto timed_out = Wait("campaign-a", 0, 60s);
  BOOST_TEST((timed_out.wait_for(200ms) == std::future_status::timeout));
  BOOST_TEST(waiters->Waiting() == 1u);
  fake.Advance(59s);
  BOOST_TEST((timed_out.wait_for(50ms) == std::future_status::timeout));
  fake.Advance(1s);
  BOOST_TEST((timed_out.wait_for(5s) == std::future_status::ready));
  for (int i = 0; i < 100 && waiters->Waiting() > 0; ++i) std::this_thread::sleep_for(10ms);
  BOOST_TEST(waiters->Waiting() == 0u);
}

BOOST_FIXTURE_TEST_CASE(long_polls_wake_on_append_at_once_or_at_the_deadline, WaitersFixture) {
  using namespace std::chrono_literals;
  // Woken by an append to its stream, long before its 60 s deadline; not by
  // one to another stream.
  auto woken = Wait("campaign-a", 0, 60s);
  Append("campaign-b");
  BOOST_TEST((woken.wait_for(300ms) == std::future_status::timeout));
  Append("campaign-a");
  BOOST_TEST((woken.wait_for(10s) == std::future_status::ready));
  // The stream is already past `after`: at once.
  auto at_once = Wait("campaign-a", 0, 60s);
  BOOST_TEST((at_once.wait_for(10s) == std::future_status::ready));
  // Nothing comes: the deadline wakes it, and it is forgotten.
  auto timed_out = Wait("campaign-a", 1, 100ms);
  BOOST_TEST((timed_out.wait_for(10s) == std::future_status::ready));
  for (int i = 0; i < 100 && waiters->Waiting() > 0; ++i) std::this_thread::sleep_for(10ms);
  BOOST_TEST(waiters->Waiting() == 0u);
}
