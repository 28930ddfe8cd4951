#include <boost/test/unit_test.hpp>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "evaluators/dispatcher.hpp"
#include "tests/fakes/evaluator/fake_backend.hpp"

using namespace accelopt;
using namespace accelopt::eval;
using accelopt::eval::testing::FakeBackend;

namespace {
// Collects callbacks; Wait(n) blocks until n arrived (or 20 s).
struct Collector {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<uint64_t, EvalResult>> got;
  std::vector<std::string> order;  // request ids in completion order
  Dispatcher::Callback Cb(std::string id = "") {
    return [this, id](uint64_t t, EvalResult r) {
      std::lock_guard<std::mutex> l(mu);
      got.emplace_back(t, std::move(r));
      order.push_back(id);
      cv.notify_all();
    };
  }
  bool Wait(size_t n) {
    std::unique_lock<std::mutex> l(mu);
    return cv.wait_for(l, std::chrono::seconds(20), [&] { return got.size() >= n; });
  }
};

EvalRequest Req(std::string source, std::string backend = "fake") {
  EvalRequest r;
  r.backend = std::move(backend);
  r.problem = "p";
  r.source = std::move(source);
  return r;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(dispatcher)

BOOST_AUTO_TEST_CASE(fake_backend_follows_its_script_and_counts) {
  FakeBackend fake;
  fake.AddRule("BROKEN", FakeBackend::Fail(EvalStatus::kCompileError, "does not compile"));
  fake.AddRule("fast", FakeBackend::Ok(10));
  BOOST_TEST(EvalStatusName(fake.Evaluate(Req("a BROKEN kernel"), nullptr).status) == std::string("compile_error"));
  BOOST_TEST(fake.Evaluate(Req("fast one"), nullptr).latency->median_us == 10);
  BOOST_TEST(fake.Evaluate(Req("other"), nullptr).latency->median_us == 100);  // default
  BOOST_TEST(fake.calls() == 3);
  BOOST_TEST(fake.calls_for_rule(0) == 1);
  BOOST_TEST(fake.calls_for_rule(1) == 1);
  BOOST_TEST(fake.requests().size() == 3u);

  auto script = ParseJson(R"({"rules": [{"pattern": "slow", "result": {"status": "ok", "compiled": true,
     "correct": true, "latency": {"median_us": 500, "min_us": 490, "mean_us": 505, "spread": 0.01}}}],
     "default": {"status": "wrong_result", "reason": "fake mismatch"}})");
  BOOST_REQUIRE(script.ok());
  auto made = FakeBackend::FromJson(*script);
  BOOST_REQUIRE_MESSAGE(made.ok(), made.status().ToString());
  std::unique_ptr<FakeBackend> f(*made);
  BOOST_TEST(f->Evaluate(Req("slow"), nullptr).latency->median_us == 500);
  BOOST_TEST(f->Evaluate(Req("x"), nullptr).reason == "fake mismatch");
}

BOOST_AUTO_TEST_CASE(slots_bound_concurrency_and_all_results_arrive) {
  auto fake = std::make_shared<FakeBackend>();
  fake->AddRule("", FakeBackend::Ok(1), 30);
  Collector c;
  {
    Dispatcher d({{fake, 3}});
    for (int i = 0; i < 12; ++i) BOOST_REQUIRE(d.Submit(Req("k" + std::to_string(i)), "c", c.Cb()).ok());
    BOOST_REQUIRE(c.Wait(12));
  }
  BOOST_TEST(fake->calls() == 12);
  BOOST_TEST(fake->max_concurrent() <= 3);
  BOOST_TEST(fake->max_concurrent() >= 2);  // the slots were actually used in parallel
}

BOOST_AUTO_TEST_CASE(unknown_backend_is_an_error) {
  auto fake = std::make_shared<FakeBackend>();
  Dispatcher d({{fake, 1}});
  auto t = d.Submit(Req("x", "cuda"), "c", nullptr);
  BOOST_TEST(!t.ok());
  BOOST_TEST((t.status().code() == Code::kNotFound));
}

BOOST_AUTO_TEST_CASE(clients_take_turns_fifo_within_a_client) {
  auto fake = std::make_shared<FakeBackend>();
  fake->AddRule("block", FakeBackend::Ok(1), 100);
  Collector c;
  Dispatcher d({{fake, 1}});
  BOOST_REQUIRE(d.Submit(Req("block"), "first", c.Cb("block")).ok());  // occupies the slot
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int i = 0; i < 4; ++i) BOOST_REQUIRE(d.Submit(Req("a"), "A", c.Cb("A" + std::to_string(i))).ok());
  BOOST_REQUIRE(d.Submit(Req("b"), "B", c.Cb("B0")).ok());
  BOOST_REQUIRE(c.Wait(6));
  std::vector<std::string> want = {"block", "A0", "B0", "A1", "A2", "A3"};
  BOOST_TEST(c.order == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(cancel_queued_and_running) {
  auto fake = std::make_shared<FakeBackend>();
  fake->AddRule("long", FakeBackend::Ok(1), 10000);
  Collector c;
  Dispatcher d({{fake, 1}});
  auto running = d.Submit(Req("long"), "c", c.Cb("running"));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto queued = d.Submit(Req("long"), "c", c.Cb("queued"));
  BOOST_REQUIRE(running.ok() && queued.ok());
  BOOST_TEST(d.Queued("fake") == 1u);
  BOOST_TEST(d.Running("fake") == 1u);
  auto t0 = std::chrono::steady_clock::now();
  BOOST_TEST(d.Cancel(*queued));
  BOOST_TEST(d.Cancel(*running));
  BOOST_REQUIRE(c.Wait(2));
  BOOST_TEST((std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5)));
  for (const auto& [t, r] : c.got) BOOST_TEST(EvalStatusName(r.status) == std::string("cancelled"));
  BOOST_TEST(!d.Cancel(*queued));  // already gone
  BOOST_TEST(fake->calls() == 1);  // the queued one never ran
}

BOOST_AUTO_TEST_CASE(shutdown_cancels_everything_and_refuses_new_work) {
  auto fake = std::make_shared<FakeBackend>();
  fake->AddRule("", FakeBackend::Ok(1), 10000);
  Collector c;
  Dispatcher d({{fake, 2}});
  for (int i = 0; i < 5; ++i) BOOST_REQUIRE(d.Submit(Req("x"), "c", c.Cb()).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto t0 = std::chrono::steady_clock::now();
  d.Shutdown();
  BOOST_TEST((std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5)));
  BOOST_TEST(c.got.size() == 5u);
  BOOST_TEST(!d.Submit(Req("x"), "c", c.Cb()).ok());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(split_cores_gives_each_slot_its_own_cpus) {
  using V = std::vector<std::vector<int>>;
  BOOST_TEST((SplitCores({0, 1}, 1) == V{{0, 1}}));
  BOOST_TEST((SplitCores({0, 1}, 2) == V{{0}, {1}}));
  BOOST_TEST((SplitCores({0, 1, 2, 3, 4}, 2) == V{{0, 1, 2}, {3, 4}}));
  BOOST_TEST((SplitCores({4, 6}, 3) == V{{4}, {6}, {4}}));
  BOOST_TEST(SplitCores({}, 2).empty());
}

BOOST_AUTO_TEST_CASE(a_slot_pins_requests_without_cores_to_its_cpus) {
  auto fake = std::make_shared<FakeBackend>();
  Collector c;
  {
    Dispatcher d({{fake, 1, {{3, 5}}}});
    EvalRequest plain = Req("a");
    EvalRequest pinned = Req("b");
    pinned.settings.cores = {7};
    BOOST_REQUIRE(d.Submit(plain, "x", c.Cb()).ok());
    BOOST_REQUIRE(d.Submit(pinned, "x", c.Cb()).ok());
    BOOST_REQUIRE(c.Wait(2));
  }
  auto seen = fake->requests();
  BOOST_REQUIRE_EQUAL(seen.size(), 2u);
  for (const auto& r : seen) {
    if (r.source == "a")
      BOOST_TEST((r.settings.cores == std::vector<int>{3, 5}));
    else
      BOOST_TEST((r.settings.cores == std::vector<int>{7}));  // what the request asked for stays
  }
}
