// Power loss and failed writes, with a file system that keeps only synced
// data (fault_fs.hpp): nothing acknowledged is lost, and after a failed
// write the log refuses further writes.
#include <boost/test/unit_test.hpp>

#include <rocksdb/db.h>

#include <atomic>
#include <map>
#include <random>
#include <thread>

#include "store/event_log.hpp"
#include "store/inspect.hpp"
#include "tests/store/fault_fs.hpp"
#include "tests/store/test_util.hpp"

using namespace accelopt;
using namespace accelopt::store;
using namespace accelopt::store::testing;
using namespace std::chrono_literals;

namespace {

struct Acked {
  std::string stream;
  uint64_t version = 0;
  int64_t tag = 0;
};

// Reopens on the real file system and checks every acknowledged event.
void CheckAfterRestart(const std::string& dir, const std::map<uint64_t, Acked>& acked) {
  auto o = DefaultOptions();
  o.create_if_missing = false;
  auto log = EventLog::Open(dir, o);
  if (!log.ok() && acked.empty()) return;  // nothing was ever acknowledged, not even creation
  BOOST_REQUIRE_MESSAGE(log.ok(), "reopen: " << log.status());
  auto all = (*log)->ReadAll();
  BOOST_REQUIRE_MESSAGE(all.ok(), all.status());
  BOOST_REQUIRE(acked.empty() || acked.rbegin()->first <= all->size());
  for (const auto& [global, a] : acked) {
    const EventRecord& e = (*all)[global - 1];
    BOOST_REQUIRE_EQUAL(e.stream, a.stream);
    BOOST_REQUIRE_EQUAL(e.version, a.version);
    BOOST_REQUIRE_EQUAL(e.data.value("tag", int64_t{-1}), a.tag);
  }
  VerifyReport report = Verify(*(*log)->store_db(), &TestRegistry());
  BOOST_REQUIRE_MESSAGE(report.ok(), FirstProblem(report));
}

// Appends from `threads` threads until appends fail; records what was acknowledged.
void AppendUntilFailure(EventLog* log, int threads, std::mutex* mu, std::map<uint64_t, Acked>* acked,
                        std::atomic<int64_t>* next_tag) {
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([=] {
      for (int i = 0;; ++i) {
        std::string stream = "p-" + std::to_string((t + i) % 3);
        int64_t tag = next_tag->fetch_add(1);
        auto r =
            log->Append({To(stream, kAnyVersion, {Ev("Tick", {{"tag", tag}, {"pad", std::string(i % 300, 'x')}})})});
        if (!r.ok()) return;
        std::lock_guard<std::mutex> lock(*mu);
        (*acked)[r->first_global] = Acked{stream, r->streams[0].first_version, tag};
      }
    });
  }
  for (auto& t : ts) t.join();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(power_loss)

// The control experiment: the harness really loses what was not synced, so
// the tests below could catch an acknowledgement before a sync.
BOOST_AUTO_TEST_CASE(harness_drops_unsynced_writes) {
  TempDir dir;
  auto fs = std::make_shared<FaultFs>();
  auto env = MakeEnv(fs);
  rocksdb::Options o;
  o.create_if_missing = true;
  o.env = env.get();
  rocksdb::DB* db = nullptr;
  BOOST_REQUIRE(rocksdb::DB::Open(o, dir.path(), &db).ok());
  rocksdb::WriteOptions synced;
  synced.sync = true;
  BOOST_REQUIRE(db->Put(synced, "durable", "1").ok());
  for (int i = 0; i < 100; ++i)
    BOOST_REQUIRE(db->Put(rocksdb::WriteOptions(), "volatile" + std::to_string(i), "x").ok());
  fs->SetPowerOff(true);
  delete db;
  BOOST_TEST(fs->DropUnsyncedData() > 0u);

  rocksdb::Options plain;
  BOOST_REQUIRE(rocksdb::DB::Open(plain, dir.path(), &db).ok());
  std::string v;
  BOOST_TEST(db->Get(rocksdb::ReadOptions(), "durable", &v).ok());
  BOOST_TEST(db->Get(rocksdb::ReadOptions(), "volatile0", &v).IsNotFound());
  BOOST_TEST(db->Get(rocksdb::ReadOptions(), "volatile99", &v).IsNotFound());
  delete db;
}

BOOST_AUTO_TEST_CASE(acknowledged_events_survive_power_loss) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  std::map<uint64_t, Acked> acked;
  std::mutex mu;
  std::atomic<int64_t> next_tag{0};
  uint64_t dropped_total = 0;
  const int rounds = 5 * StressScale();
  for (int round = 0; round < rounds; ++round) {
    auto fs = std::make_shared<FaultFs>();
    auto env = MakeEnv(fs);
    auto o = DefaultOptions();
    o.rocksdb_env = env.get();
    {
      auto log = EventLog::Open(dir.path(), o);
      BOOST_REQUIRE_MESSAGE(log.ok(), log.status());
      // The power goes out in the middle of a sync (its data is written but
      // not durable) or, every other round, at a random moment.
      std::thread cutter;
      if (round % 2 == 0) {
        fs->PowerOffAtSync(static_cast<int>(rng() % 200));
      } else {
        cutter = std::thread([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 200));
          fs->SetPowerOff(true);
        });
      }
      AppendUntilFailure(log->get(), 4, &mu, &acked, &next_tag);
      if (cutter.joinable()) cutter.join();
      BOOST_TEST(!(*log)->Healthy());
    }
    dropped_total += fs->DropUnsyncedData();
    CheckAfterRestart(dir.path(), acked);
  }
  BOOST_TEST_MESSAGE(rounds << " power cuts, " << acked.size() << " acknowledged events kept, " << dropped_total
                            << " unsynced bytes dropped");
  BOOST_TEST(acked.size() >= static_cast<size_t>(rounds));
  BOOST_TEST(dropped_total > 0u);  // some written data really was lost
}

BOOST_AUTO_TEST_CASE(a_failed_write_makes_the_log_refuse_all_later_writes) {
  TempDir dir;
  auto fs = std::make_shared<FaultFs>();
  auto env = MakeEnv(fs);
  auto o = DefaultOptions();
  o.rocksdb_env = env.get();
  auto log = EventLog::Open(dir.path(), o);
  BOOST_REQUIRE(log.ok());
  BOOST_REQUIRE((*log)->Append({To("h", kNoStream, {Ev("Tick", {{"tag", 0}})})}).ok());
  BOOST_TEST((*log)->Healthy());
  fs->FailSyncsAfter(0);
  auto failed = (*log)->Append({To("h", 1, {Ev("Tick", {{"tag", 1}})})});
  BOOST_TEST(failed.status().code() == Code::kIOError, failed.status());
  BOOST_TEST(!(*log)->Healthy());
  BOOST_TEST(!(*log)->HealthStatus().ok());
  // Even once the disk works again, the log stays read-only until reopened.
  fs->FailSyncsAfter(-1);
  auto refused = (*log)->Append({To("other", kAnyVersion, {Ev("Tick")})});
  BOOST_TEST(refused.status().code() == Code::kFailedPrecondition, refused.status());
  BOOST_TEST((*log)->PutBlob("b").status().code() == Code::kFailedPrecondition);
  // Reads still work.
  BOOST_TEST((*log)->ReadStream("h").ok());
  log->reset();
  fs->DropUnsyncedData();
  std::map<uint64_t, Acked> acked = {{1, Acked{"h", 1, 0}}};
  CheckAfterRestart(dir.path(), acked);
}

// "Fail the Nth sync" for every N over the life of a small log, creation
// included: whatever fails, a restart finds every acknowledged event.
BOOST_AUTO_TEST_CASE(failing_the_nth_sync_never_loses_acknowledged_events) {
  for (int n = 0; n < 24; ++n) {
    TempDir dir;
    std::map<uint64_t, Acked> acked;
    std::mutex mu;
    std::atomic<int64_t> next_tag{0};
    {
      auto fs = std::make_shared<FaultFs>();
      auto env = MakeEnv(fs);
      fs->FailSyncsAfter(n);
      auto o = DefaultOptions();
      o.rocksdb_env = env.get();
      auto log = EventLog::Open(dir.path(), o);
      if (log.ok()) {
        AppendUntilFailure(log->get(), 2, &mu, &acked, &next_tag);
        BOOST_TEST(!(*log)->Healthy());
        // The failed sync may have been the power going out.
        fs->SetPowerOff(true);
      } else {
        fs->SetPowerOff(true);
      }
      log = Status(Code::kCancelled, "closed");
      fs->DropUnsyncedData();
    }
    CheckAfterRestart(dir.path(), acked);
    // And the log works again after the restart.
    auto log = EventLog::Open(dir.path(), DefaultOptions());
    BOOST_REQUIRE_MESSAGE(log.ok(), "n=" << n << ": " << log.status());
    BOOST_TEST((*log)->Append({To("after", kAnyVersion, {Ev("Tick")})}).ok());
  }
}

BOOST_AUTO_TEST_SUITE_END()
