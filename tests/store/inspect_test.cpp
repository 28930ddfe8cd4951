// The offline tool: verify finds what is wrong, stats counts, dump prints
// JSON lines; the accelopt-store executable's output and exit codes.
#include <boost/test/unit_test.hpp>

#include <sstream>

#include "base/json.hpp"
#include "base/subprocess.hpp"
#include "store/event_log.hpp"
#include "store/inspect.hpp"
#include "store/record_codec.hpp"
#include "store/store_db.hpp"
#include "tests/store/test_util.hpp"

using namespace accelopt;
using namespace accelopt::store;
using namespace accelopt::store::testing;

namespace {

const std::string kTool = ACCELOPT_BINARY_DIR "/store/accelopt-store";

void MakeStore(const std::string& dir) {
  auto log = EventLog::Open(dir, DefaultOptions());
  BOOST_REQUIRE(log.ok());
  for (int i = 0; i < 10; ++i) {
    StreamAppend a = To("s" + std::to_string(i % 2), kAnyVersion, {Ev(i % 3 ? "Tick" : "Pair", {{"i", i}})});
    if (i == 0) a.blobs = {"prompt text"};
    BOOST_REQUIRE((*log)->Append({a}).ok());
  }
}

std::unique_ptr<StoreDb> OpenDb(const std::string& dir, bool read_only) {
  StoreDbOptions o;
  o.read_only = read_only;
  auto db = StoreDb::Open(dir, o);
  BOOST_REQUIRE_MESSAGE(db.ok(), db.status());
  return std::move(db).value();
}

ProcessResult Tool(std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {kTool};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  return *r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(inspect)

BOOST_AUTO_TEST_CASE(verify_passes_a_good_store_and_stats_count_it) {
  TempDir dir;
  MakeStore(dir.path());
  auto db = OpenDb(dir.path(), true);
  VerifyReport r = Verify(*db, &TestRegistry());
  BOOST_TEST(r.ok(), FirstProblem(r));
  BOOST_TEST(r.events == 10u);
  BOOST_TEST(r.streams == 2u);
  BOOST_TEST(r.blobs == 1u);
  auto s = ComputeStats(*db);
  BOOST_REQUIRE(s.ok());
  BOOST_TEST(s->events == 10u);
  BOOST_TEST(s->last_global == 10u);
  BOOST_TEST(s->streams == 2u);
  BOOST_TEST(s->events_by_type["Tick"] == 6u);
  BOOST_TEST(s->events_by_type["Pair"] == 4u);
  BOOST_TEST(s->blob_bytes == 11u);
  BOOST_TEST(s->event_bytes > 10u * 8u);
  BOOST_TEST(s->disk_bytes > 0u);
  std::ostringstream out;
  BOOST_REQUIRE(DumpEvents(*db, DumpOptions{"s1", 1}, out).ok());
  std::istringstream lines(out.str());
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    auto j = ParseJson(line);
    BOOST_REQUIRE(j.ok());
    BOOST_TEST((*j)["stream"] == "s1");
    BOOST_TEST((*j)["version"] == n + 1);
    BOOST_TEST((*j)["data"]["i"] == 2 * n + 1);
    ++n;
  }
  BOOST_TEST(n == 5);
}

BOOST_AUTO_TEST_CASE(verify_finds_each_kind_of_damage) {
  struct Damage {
    const char* what;
    std::function<void(StoreDb&)> apply;
    const char* expect;
  };
  rocksdb::WriteOptions wo;
  std::vector<Damage> damages = {
      {"missing event", [&](StoreDb& db) { (void)db.db()->Delete(wo, db.global(), BigEndian64(4)); }, "jump"},
      {"garbage record", [&](StoreDb& db) { (void)db.db()->Put(wo, db.global(), BigEndian64(2), "junk"); },
       "global position 2"},
      {"missing index entry", [&](StoreDb& db) { (void)db.db()->Delete(wo, db.events(), StreamKey("s0", 2)); },
       "index has 9 entries"},
      {"index points elsewhere",
       [&](StoreDb& db) { (void)db.db()->Put(wo, db.events(), StreamKey("s0", 2), BigEndian64(2)); }, "does not match"},
      {"wrong head", [&](StoreDb& db) { (void)db.db()->Put(wo, db.meta(), "head/s1", BigEndian64(9)); },
       "meta head of s1"},
      {"wrong last", [&](StoreDb& db) { (void)db.db()->Put(wo, db.meta(), kMetaLastGlobal, BigEndian64(3)); },
       "meta says"},
      {"bad blob",
       [&](StoreDb& db) {
         std::unique_ptr<rocksdb::Iterator> it(db.db()->NewIterator(rocksdb::ReadOptions(), db.blobs()));
         it->SeekToFirst();
         BOOST_REQUIRE(it->Valid());
         (void)db.db()->Put(wo, db.blobs(), it->key(), "tampered");
       },
       "does not match its hash"},
  };
  for (const auto& d : damages) {
    TempDir dir;
    MakeStore(dir.path());
    {
      auto db = OpenDb(dir.path(), false);
      d.apply(*db);
    }
    auto db = OpenDb(dir.path(), true);
    VerifyReport r = Verify(*db);
    BOOST_TEST(!r.ok(), d.what << " not found");
    bool named = false;
    for (const auto& p : r.problems) named |= p.find(d.expect) != std::string::npos;
    BOOST_TEST(named, d.what << ": no problem mentions '" << d.expect << "'; first: " << FirstProblem(r));
  }
}

BOOST_AUTO_TEST_CASE(the_tool_prints_and_exits_as_documented) {
  TempDir dir;
  MakeStore(dir.path());
  auto dump = Tool({"dump", dir.path()});
  BOOST_TEST(dump.exit_code == 0, dump.stderr_data);
  BOOST_TEST(std::count(dump.stdout_data.begin(), dump.stdout_data.end(), '\n') == 10);
  auto first = ParseJson(dump.stdout_data.substr(0, dump.stdout_data.find('\n')));
  BOOST_REQUIRE(first.ok());
  BOOST_TEST((*first)["global_position"] == 1);
  BOOST_TEST((*first)["type"] == "Pair");
  auto from = Tool({"dump", dir.path(), "--from", "9"});
  BOOST_TEST(std::count(from.stdout_data.begin(), from.stdout_data.end(), '\n') == 2);

  auto verify = Tool({"verify", dir.path()});
  BOOST_TEST(verify.exit_code == 0, verify.stdout_data);
  BOOST_TEST(verify.stdout_data.find("ok: 10 events, 2 streams, 1 blobs") != std::string::npos, verify.stdout_data);
  auto stats = Tool({"stats", dir.path(), "-o", "json"});
  BOOST_TEST(stats.exit_code == 0);
  auto sj = ParseJson(stats.stdout_data);
  BOOST_REQUIRE(sj.ok());
  BOOST_TEST((*sj)["events"] == 10);
  BOOST_TEST((*sj)["events_by_type"]["Tick"] == 6);
  BOOST_TEST(Tool({"stats", dir.path()}).stdout_data.find("events         10") != std::string::npos);

  // Damage: verify fails with 1, dump stops at the bad record with 1.
  {
    auto db = OpenDb(dir.path(), false);
    (void)db->db()->Put(rocksdb::WriteOptions(), db->global(), BigEndian64(5), "junk");
  }
  verify = Tool({"verify", dir.path()});
  BOOST_TEST(verify.exit_code == 1);
  BOOST_TEST(verify.stdout_data.find("problem: global position 5") != std::string::npos, verify.stdout_data);
  dump = Tool({"dump", dir.path()});
  BOOST_TEST(dump.exit_code == 1);
  BOOST_TEST(std::count(dump.stdout_data.begin(), dump.stdout_data.end(), '\n') == 4);
  BOOST_TEST(dump.stderr_data.find("global position 5") != std::string::npos, dump.stderr_data);

  // A state directory works as well as its events/ folder (the usage says <state-dir>).
  {
    TempDir state;
    MakeStore(state.sub("events"));
    auto via_state = Tool({"stats", state.path(), "-o", "json"});
    BOOST_TEST(via_state.exit_code == 0, via_state.stderr_data);
    auto vj = ParseJson(via_state.stdout_data);
    BOOST_TEST((vj.ok() && (*vj)["events"] == 10));
  }
  auto help = Tool({"--help"});
  BOOST_TEST(help.exit_code == 0);
  BOOST_TEST(help.stdout_data.find("usage: accelopt-store") != std::string::npos);

  // Usage and open errors.
  BOOST_TEST(Tool({"frobnicate", dir.path()}).exit_code == 2);
  BOOST_TEST(Tool({}).exit_code == 2);
  auto missing = Tool({"stats", dir.sub("absent")});
  BOOST_TEST(missing.exit_code == 3);
  BOOST_TEST(missing.stderr_data.find("does not exist") != std::string::npos, missing.stderr_data);
}

BOOST_AUTO_TEST_SUITE_END()
