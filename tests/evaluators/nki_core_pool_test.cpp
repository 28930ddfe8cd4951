// The NeuronCore slot pool (evaluators/nki/core_pool.hpp): core lists, one
// evaluation per core, quarantine after a failed health check, the wait for
// a core on the Env's clock, cancel.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <thread>

#include "evaluators/nki/core_pool.hpp"
#include "tests/evaluators/nki_test_util.hpp"

using namespace accelopt;
using namespace accelopt::eval::nki;
using namespace accelopt::eval::nki::testing;

BOOST_AUTO_TEST_SUITE(nki_cores)

BOOST_AUTO_TEST_CASE(parses_core_lists) {
  auto all = ParseCoreList("0-31");
  BOOST_REQUIRE(all.ok());
  BOOST_TEST(all->size() == 32u);
  BOOST_TEST(all->back() == 31);
  BOOST_TEST((*ParseCoreList("4-5, 0,2") == std::vector<int>{0, 2, 4, 5}));
  for (std::string bad : {"", "3-1", "0,0", "0-2,1", "a", "0-", "-1", "99999", "1;2"}) {
    auto r = ParseCoreList(bad);
    BOOST_TEST(!r.ok(), bad);
    BOOST_TEST(r.status().message().find("evaluators.nki.cores '" + bad + "'") != std::string::npos,
               r.status().message());
  }
}

BOOST_AUTO_TEST_CASE(one_evaluation_per_core_and_quarantine_after_a_failed_check) {
  std::vector<std::string> logs;
  std::vector<int> checked;
  std::mutex mu;
  NeuronCorePool pool(
      {3, 4},
      [&](int core) {
        std::lock_guard<std::mutex> l(mu);
        checked.push_back(core);
        return core == 3 ? Status(Code::kUnavailable, "nrt_init failed on nc 3") : Status::Ok();
      },
      [&](const std::string& line) {
        std::lock_guard<std::mutex> l(mu);
        logs.push_back(line);
      });
  auto a = pool.Acquire(nullptr, std::chrono::milliseconds(100));
  auto b = pool.Acquire(nullptr, std::chrono::milliseconds(100));
  BOOST_REQUIRE(a.ok() && b.ok());
  BOOST_TEST(*a != *b);
  auto c = pool.Acquire(nullptr, std::chrono::milliseconds(50));  // both busy
  BOOST_TEST((c.status().code() == Code::kTimeout));
  BOOST_TEST(checked.empty());  // healthy cores are not checked

  pool.Release(3, /*runner_failed=*/true);
  pool.Release(4, /*runner_failed=*/true);
  // Core 4 passes its check and is handed out; core 3 fails and is quarantined.
  auto d = pool.Acquire(nullptr, std::chrono::milliseconds(100));
  BOOST_REQUIRE(d.ok());
  auto e = pool.Acquire(nullptr, std::chrono::milliseconds(50));
  BOOST_TEST(!e.ok());
  BOOST_TEST(*d == 4);
  BOOST_TEST((pool.Quarantined() == std::vector<int>{3}));
  BOOST_TEST(checked.size() == 2u);
  BOOST_REQUIRE(logs.size() == 1u);
  BOOST_TEST(logs[0].find("NeuronCore 3 quarantined") != std::string::npos, logs[0]);
  BOOST_TEST(logs[0].find("nrt_init failed on nc 3") != std::string::npos);
  pool.Release(4, false);
  BOOST_TEST(*pool.Acquire(nullptr, std::chrono::milliseconds(50)) == 4);  // not checked again
  BOOST_TEST(checked.size() == 2u);
  pool.Release(4, true);
  checked.clear();
}

BOOST_AUTO_TEST_CASE(the_wait_for_a_core_times_out_on_the_envs_clock) {
  // One busy core, an hour's timeout, a fake clock: real time does not end
  // the wait; moving the clock past the hour does.
  FakeClockEnv fake(Env::Default());
  NeuronCorePool pool(
      {0}, nullptr, [](const std::string&) {}, &fake);
  BOOST_REQUIRE(pool.Acquire(nullptr, std::chrono::milliseconds(10)).ok());
  std::atomic<bool> done{false};
  Result<int> waited = Status(Code::kInternal, "not returned");
  std::thread waiter([&] {
    waited = pool.Acquire(nullptr, std::chrono::hours(1));
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  BOOST_TEST(!done.load());
  fake.Advance(std::chrono::minutes(61));
  for (int i = 0; i < 100 && !done.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  BOOST_TEST(done.load());
  waiter.join();
  BOOST_TEST((waited.status().code() == Code::kTimeout));
}

BOOST_AUTO_TEST_CASE(every_core_quarantined_and_cancel) {
  NeuronCorePool pool(
      {0}, [](int) { return Status(Code::kUnavailable, "no device"); }, [](const std::string&) {});
  auto a = pool.Acquire(nullptr, std::chrono::milliseconds(10));
  BOOST_REQUIRE(a.ok());
  std::atomic<bool> cancel{false};
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    cancel = true;
  });
  auto b = pool.Acquire(&cancel, std::chrono::seconds(5));
  t.join();
  BOOST_TEST((b.status().code() == Code::kCancelled));
  pool.Release(0, true);
  auto c = pool.Acquire(nullptr, std::chrono::milliseconds(10));
  BOOST_TEST((c.status().code() == Code::kFailedPrecondition));
  BOOST_TEST(c.status().message().find("every NeuronCore of the nki backend is quarantined (0)") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
