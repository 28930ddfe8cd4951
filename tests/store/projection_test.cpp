// Projections: kept live on append, checkpointed with their state, caught
// up after restart, rebuilt from the log; rebuilt == live.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <random>
#include <thread>

#include "store/event_log.hpp"
#include "store/record_codec.hpp"
#include "store/store_db.hpp"
#include "tests/store/test_util.hpp"

using namespace accelopt;
using namespace accelopt::store;
using namespace accelopt::store::testing;

namespace {

// Per stream: event count, sum of data.n (after upcasting "count" counts
// too), and the last global position.
std::shared_ptr<const Projection> Summary(int version = 1, std::atomic<int>* applied = nullptr) {
  return MakeProjection("summary", version, json{{"streams", json::object()}, {"total", 0}},
                        [applied](json& state, const EventRecord& e) -> Status {
                          if (applied) ++*applied;
                          json& s = state["streams"][e.stream];
                          if (s.is_null()) s = json::object();
                          s["events"] = s.value("events", 0) + 1;
                          s["sum"] = s.value("sum", int64_t{0}) + e.data.value("n", int64_t{0}) +
                                     e.data.value("count", int64_t{0});
                          s["last"] = e.global_position;
                          state["total"] = state["total"].get<int64_t>() + 1;
                          return Status::Ok();
                        });
}

EventLog::Options WithSummary(int version = 1, std::atomic<int>* applied = nullptr) {
  auto o = DefaultOptions();
  o.projections = {Summary(version, applied)};
  o.projection_checkpoint_every = 7;
  return o;
}

json StoredState(EventLog& log, const std::string& name, uint64_t* checkpoint) {
  StoreDb* db = log.store_db();
  std::string state, cp;
  BOOST_REQUIRE(db->db()->Get(rocksdb::ReadOptions(), db->ProjectionCf(name), "state", &state).ok());
  BOOST_REQUIRE(db->db()->Get(rocksdb::ReadOptions(), db->ProjectionCf(name), "checkpoint", &cp).ok());
  *checkpoint = GetBigEndian64(cp);
  return json::parse(state);
}

void AppendRandom(EventLog& log, std::mt19937_64& rng, int n) {
  for (int i = 0; i < n; ++i) {
    std::vector<NewEvent> events;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) {
      events.push_back(rng() % 2 ? Ev("Tick", {{"n", static_cast<int64_t>(rng() % 100)}})
                                 : Ev("Renamed", {{"count", static_cast<int64_t>(rng() % 100)}, {"unit", "s"}}));
    }
    BOOST_REQUIRE(log.Append({To("s" + std::to_string(rng() % 4), kAnyVersion, events)}).ok());
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(projections)

BOOST_AUTO_TEST_CASE(rebuilt_projection_equals_live_projection) {
  TempDir dir;
  std::mt19937_64 rng(7);
  auto log = EventLog::Open(dir.path(), WithSummary());
  BOOST_REQUIRE(log.ok());
  // Concurrent appenders while the projection follows live.
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      std::mt19937_64 r(t);
      for (int i = 0; i < 30; ++i) {
        (void)(*log)->Append({To("c" + std::to_string(r() % 3), kAnyVersion, {Ev("Tick", {{"n", i}})})});
      }
    });
  }
  for (auto& t : ts) t.join();
  AppendRandom(**log, rng, 50);
  auto live = (*log)->ReadProjection("summary");
  BOOST_REQUIRE(live.ok());
  BOOST_TEST(live->checkpoint == (*log)->LastGlobalPosition());
  BOOST_TEST(live->state["total"].get<uint64_t>() == (*log)->LastGlobalPosition());

  BOOST_REQUIRE((*log)->RebuildProjection("summary").ok());
  auto rebuilt = (*log)->ReadProjection("summary");
  BOOST_REQUIRE(rebuilt.ok());
  BOOST_TEST(rebuilt->checkpoint == live->checkpoint);
  BOOST_TEST(rebuilt->state == live->state, "rebuilt " << rebuilt->state.dump() << "\nlive " << live->state.dump());
  // The stored copy is the same too.
  uint64_t cp = 0;
  BOOST_TEST(StoredState(**log, "summary", &cp) == live->state);
  BOOST_TEST(cp == live->checkpoint);

  // And the state is what folding ReadAll gives by hand.
  auto all = (*log)->ReadAll();
  BOOST_REQUIRE(all.ok());
  json by_hand = Summary()->Initial();
  for (const auto& e : *all) BOOST_REQUIRE(Summary()->Apply(by_hand, e).ok());
  BOOST_TEST(by_hand == live->state);
}

BOOST_AUTO_TEST_CASE(checkpoint_is_stored_with_state_and_caught_up_after_restart) {
  TempDir dir;
  std::mt19937_64 rng(11);
  json live_state;
  {
    auto log = EventLog::Open(dir.path(), WithSummary());
    BOOST_REQUIRE(log.ok());
    AppendRandom(**log, rng, 40);
    uint64_t cp = 0;
    json stored = StoredState(**log, "summary", &cp);
    // Persisted every 7 events: behind or at the end, but consistent with its checkpoint.
    BOOST_TEST(cp > 0u);
    BOOST_TEST(stored["total"].get<uint64_t>() == cp);
    live_state = (*log)->ReadProjection("summary")->state;
  }
  // Events appended while the projection is not registered...
  {
    auto log = EventLog::Open(dir.path(), DefaultOptions());
    BOOST_REQUIRE(log.ok());
    AppendRandom(**log, rng, 10);
  }
  // ...are folded in at the next open, without replaying from the start.
  std::atomic<int> applied{0};
  auto log = EventLog::Open(dir.path(), WithSummary(1, &applied));
  BOOST_REQUIRE(log.ok());
  auto snap = (*log)->ReadProjection("summary");
  BOOST_REQUIRE(snap.ok());
  BOOST_TEST(snap->checkpoint == (*log)->LastGlobalPosition());
  BOOST_TEST(applied.load() < static_cast<int>((*log)->LastGlobalPosition()));
  BOOST_TEST(applied.load() > 0);
  BOOST_REQUIRE((*log)->RebuildProjection("summary").ok());
  BOOST_TEST((*log)->ReadProjection("summary")->state == snap->state);
}

BOOST_AUTO_TEST_CASE(a_new_version_rebuilds_from_the_log) {
  TempDir dir;
  std::mt19937_64 rng(3);
  {
    auto log = EventLog::Open(dir.path(), WithSummary(1));
    BOOST_REQUIRE(log.ok());
    AppendRandom(**log, rng, 20);
  }
  std::atomic<int> applied{0};
  auto log = EventLog::Open(dir.path(), WithSummary(2, &applied));
  BOOST_REQUIRE(log.ok());
  auto snap = (*log)->ReadProjection("summary");
  BOOST_REQUIRE(snap.ok());
  BOOST_TEST(applied.load() == static_cast<int>((*log)->LastGlobalPosition()));
  uint64_t cp = 0;
  (void)(*log)->CheckpointProjections();
  StoredState(**log, "summary", &cp);
  BOOST_TEST(cp == (*log)->LastGlobalPosition());
}

BOOST_AUTO_TEST_CASE(a_failing_fold_is_reported_until_rebuilt) {
  TempDir dir;
  std::atomic<bool> fail{true};
  auto o = DefaultOptions();
  o.projections = {MakeProjection("picky", 1, json{{"n", 0}}, [&](json& s, const EventRecord& e) -> Status {
    if (fail && e.data.contains("poison")) return InvalidArgument("cannot fold poison");
    s["n"] = s["n"].get<int>() + 1;
    return Status::Ok();
  })};
  auto log = EventLog::Open(dir.path(), o);
  BOOST_REQUIRE(log.ok());
  BOOST_REQUIRE((*log)->Append({To("s", kAnyVersion, {Ev("Tick"), Ev("Tick", {{"poison", 1}}), Ev("Tick")})}).ok());
  auto r = (*log)->ReadProjection("picky");
  BOOST_TEST(!r.ok());
  BOOST_TEST(r.status().message().find("cannot fold poison") != std::string::npos);
  BOOST_TEST((*log)->Healthy());  // the log itself is fine
  fail = false;
  BOOST_REQUIRE((*log)->RebuildProjection("picky").ok());
  auto ok = (*log)->ReadProjection("picky");
  BOOST_REQUIRE(ok.ok());
  BOOST_TEST(ok->state["n"] == 3);
  BOOST_TEST((*log)->ReadProjection("nope").status().code() == Code::kNotFound);
}

BOOST_AUTO_TEST_CASE(projections_need_a_registry_and_valid_names) {
  TempDir dir;
  auto o = DefaultOptions();
  o.registry = nullptr;
  o.projections = {Summary()};
  BOOST_TEST(EventLog::Open(dir.path(), o).status().code() == Code::kInvalidArgument);
  o = DefaultOptions();
  o.projections = {
      MakeProjection("Bad Name", 1, json::object(), [](json&, const EventRecord&) { return Status::Ok(); })};
  BOOST_TEST(EventLog::Open(dir.path(), o).status().code() == Code::kInvalidArgument);
}

BOOST_AUTO_TEST_SUITE_END()
