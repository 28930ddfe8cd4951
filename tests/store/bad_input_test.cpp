// Bad input: damaged records, a torn or damaged write-ahead log, a state
// directory from a newer schema, a missing directory, a read-only directory,
// something that is not a store. Each gives a clear error; none corrupts data.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/subprocess.hpp"
#include "store/event_log.hpp"
#include "store/inspect.hpp"
#include "store/record_codec.hpp"
#include "store/store_db.hpp"
#include "tests/store/test_util.hpp"

using namespace accelopt;
using namespace accelopt::store;
using namespace accelopt::store::testing;
namespace fs = std::filesystem;

namespace {

// A store with 3 streams and `n` events in all.
void MakeStore(const std::string& dir, int n) {
  auto log = EventLog::Open(dir, DefaultOptions());
  BOOST_REQUIRE(log.ok());
  for (int i = 0; i < n; ++i) {
    BOOST_REQUIRE((*log)->Append({To("s" + std::to_string(i % 3), kAnyVersion, {Ev("Tick", {{"i", i}})})}).ok());
  }
}

// Writes raw bytes under a key of a column family, bypassing the log.
void RawPut(const std::string& dir, const std::string& cf, const std::string& key, const std::string& value) {
  StoreDbOptions o;
  auto db = StoreDb::Open(dir, o);
  BOOST_REQUIRE(db.ok());
  rocksdb::ColumnFamilyHandle* h = cf == "global" ? (*db)->global() : cf == "meta" ? (*db)->meta() : (*db)->events();
  rocksdb::WriteOptions wo;
  wo.sync = true;
  BOOST_REQUIRE((*db)->db()->Put(wo, h, key, value).ok());
}

std::string RawGet(const std::string& dir, const std::string& key) {
  auto db = StoreDb::Open(dir, StoreDbOptions{});
  BOOST_REQUIRE(db.ok());
  std::string v;
  BOOST_REQUIRE((*db)->db()->Get(rocksdb::ReadOptions(), (*db)->global(), key, &v).ok());
  return v;
}

std::map<std::string, uintmax_t> Files(const std::string& dir) {
  std::map<std::string, uintmax_t> out;
  for (const auto& e : fs::directory_iterator(dir)) out[e.path().filename()] = fs::file_size(e.path());
  return out;
}

std::string WalFile(const std::string& dir) {
  std::string wal;
  uintmax_t size = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".log" && fs::file_size(e.path()) > size) {
      wal = e.path();
      size = fs::file_size(e.path());
    }
  }
  return wal;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(garbage_and_truncated_records_are_clear_corruption) {
  TempDir dir;
  MakeStore(dir.path(), 9);
  std::string good = RawGet(dir.path(), BigEndian64(5));
  RawPut(dir.path(), "global", BigEndian64(5), good.substr(0, good.size() / 2));  // truncated
  RawPut(dir.path(), "global", BigEndian64(7), "\x01garbage that is not a record");

  auto log = EventLog::Open(dir.path(), DefaultOptions());
  BOOST_REQUIRE_MESSAGE(log.ok(), log.status());
  auto all = (*log)->ReadAll();
  BOOST_TEST(all.status().code() == Code::kCorruption);
  BOOST_TEST(all.status().message().find("global position 5") != std::string::npos, all.status());
  // Stream 5 = s1 version 2; 7 = s0 version 3.
  auto s1 = (*log)->ReadStream("s1");
  BOOST_TEST(s1.status().code() == Code::kCorruption);
  BOOST_TEST((*log)->ReadStream("s1", 1, 1).ok());
  BOOST_TEST((*log)->ReadStream("s2").ok());     // untouched stream
  BOOST_TEST((*log)->ReadAll(8)->size() == 2u);  // after the damage
  // Appending still works and touches nothing old.
  BOOST_TEST((*log)->Append({To("s2", kAnyVersion, {Ev("Tick")})}).ok());
  VerifyReport r = Verify(*(*log)->store_db());
  BOOST_REQUIRE(r.problems.size() >= 2u);
  BOOST_TEST(r.problems[0].find("global position 5") == 0u, r.problems[0]);
  BOOST_TEST(r.problems[1].find("global position 7") == 0u, r.problems[1]);
  log->reset();
  BOOST_TEST(RawGet(dir.path(), BigEndian64(6)).size() > 0u);
}

BOOST_AUTO_TEST_CASE(a_torn_write_ahead_log_recovers_to_a_consistent_prefix) {
  TempDir dir;
  std::string base = dir.sub("base");
  MakeStore(base, 30);
  std::string wal = WalFile(base);
  BOOST_REQUIRE_MESSAGE(!wal.empty(), "no write-ahead log left after close");
  uintmax_t size = fs::file_size(wal);
  BOOST_REQUIRE(size > 1000u);
  const int points = 48;
  uint64_t shortest = UINT64_MAX;
  for (int p = 0; p <= points; ++p) {
    uintmax_t cut = size * p / points;
    std::string copy = dir.sub("cut" + std::to_string(p));
    fs::copy(base, copy, fs::copy_options::recursive);
    fs::resize_file(copy + "/" + fs::path(wal).filename().string(), cut);
    auto o = DefaultOptions();
    o.create_if_missing = false;
    auto log = EventLog::Open(copy, o);
    BOOST_REQUIRE_MESSAGE(log.ok(), "cut at " << cut << " of " << size << ": " << log.status());
    uint64_t last = (*log)->LastGlobalPosition();
    shortest = std::min(shortest, last);
    auto all = (*log)->ReadAll();
    BOOST_REQUIRE_MESSAGE(all.ok(), all.status());
    BOOST_REQUIRE_EQUAL(all->size(), last);
    for (uint64_t i = 0; i < last; ++i) BOOST_REQUIRE_EQUAL((*all)[i].data["i"].get<uint64_t>(), i);
    VerifyReport r = Verify(*(*log)->store_db(), &TestRegistry());
    BOOST_REQUIRE_MESSAGE(r.ok(), "cut at " << cut << ": " << FirstProblem(r));
    // The recovered log takes new appends.
    BOOST_REQUIRE(
        (*log)->Append({To("s0", static_cast<int64_t>((*log)->Head("s0")), {Ev("Tick", {{"i", last}})})}).ok());
    log->reset();
    fs::remove_all(copy);
  }
  BOOST_TEST(shortest < 30u);  // some cuts really lost the tail
}

BOOST_AUTO_TEST_CASE(garbage_in_the_write_ahead_log_does_not_break_open) {
  TempDir dir;
  std::string base = dir.sub("base");
  MakeStore(base, 20);
  std::string wal_name = fs::path(WalFile(base)).filename();
  for (int variant = 0; variant < 2; ++variant) {
    std::string copy = dir.sub("v" + std::to_string(variant));
    fs::copy(base, copy, fs::copy_options::recursive);
    std::string wal = copy + "/" + wal_name;
    if (variant == 0) {
      std::ofstream(wal, std::ios::app | std::ios::binary) << std::string(777, '\xa5');  // junk tail
    } else {
      std::fstream f(wal, std::ios::in | std::ios::out | std::ios::binary);  // junk in the middle
      f.seekp(static_cast<std::streamoff>(fs::file_size(wal) / 2));
      f << std::string(64, '\x5a');
    }
    auto o = DefaultOptions();
    o.create_if_missing = false;
    auto log = EventLog::Open(copy, o);
    if (!log.ok()) {
      // Refusing is acceptable if it says why.
      BOOST_TEST((log.status().code() == Code::kCorruption || log.status().code() == Code::kIOError), log.status());
      continue;
    }
    auto all = (*log)->ReadAll();
    BOOST_REQUIRE(all.ok());
    for (size_t i = 0; i < all->size(); ++i) BOOST_REQUIRE_EQUAL((*all)[i].data["i"].get<uint64_t>(), i);
    BOOST_TEST(Verify(*(*log)->store_db(), &TestRegistry()).ok());
  }
}

BOOST_AUTO_TEST_CASE(a_newer_schema_is_refused_and_left_untouched) {
  TempDir dir;
  MakeStore(dir.path(), 4);
  RawPut(dir.path(), "meta", kMetaSchemaVersion, "99");
  auto before = Files(dir.path());
  auto log = EventLog::Open(dir.path(), DefaultOptions());
  BOOST_TEST(log.status().code() == Code::kFailedPrecondition);
  BOOST_TEST(log.status().message().find("schema version 99") != std::string::npos, log.status());
  auto ro = DefaultOptions();
  ro.read_only = true;
  BOOST_TEST(EventLog::Open(dir.path(), ro).status().code() == Code::kFailedPrecondition);
  BOOST_TEST((Files(dir.path()) == before));
}

BOOST_AUTO_TEST_CASE(a_missing_directory_is_not_found_and_not_created) {
  TempDir dir;
  std::string missing = dir.sub("nope/state");
  auto o = DefaultOptions();
  o.create_if_missing = false;
  auto log = EventLog::Open(missing, o);
  BOOST_TEST(log.status().code() == Code::kNotFound);
  BOOST_TEST(log.status().message().find(missing) != std::string::npos);
  BOOST_TEST(!fs::exists(dir.sub("nope")));
  // An empty directory is not a store either.
  fs::create_directories(dir.sub("empty"));
  BOOST_TEST(EventLog::Open(dir.sub("empty"), o).status().code() == Code::kNotFound);
  // A file is not a directory.
  std::ofstream(dir.sub("file")) << "x";
  BOOST_TEST(EventLog::Open(dir.sub("file"), DefaultOptions()).status().code() == Code::kInvalidArgument);
}

BOOST_AUTO_TEST_CASE(a_rocksdb_that_is_not_ours_is_refused) {
  TempDir dir;
  rocksdb::Options o;
  o.create_if_missing = true;
  rocksdb::DB* db = nullptr;
  BOOST_REQUIRE(rocksdb::DB::Open(o, dir.path(), &db).ok());
  BOOST_REQUIRE(db->Put(rocksdb::WriteOptions(), "k", "v").ok());
  delete db;
  auto log = EventLog::Open(dir.path(), DefaultOptions());
  BOOST_TEST(log.status().code() == Code::kCorruption, log.status());
  BOOST_TEST(log.status().message().find("not an accelopt") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_read_only_directory_is_permission_denied_but_readable) {
  TempDir dir;
  std::string state = dir.sub("state");
  MakeStore(state, 5);
  auto before = Files(state);
  // Readable by others (the check may run as nobody), writable by no one.
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  for (const auto& e : fs::directory_iterator(state)) {
    fs::permissions(e.path(), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  }
  fs::permissions(state, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
  // Root ignores permissions: open from a child running as nobody.
  ProcessSpec spec;
  if (geteuid() == 0) spec.argv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  spec.argv.insert(spec.argv.end(), {STORE_CRASH_CHILD, "--open", state});
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->Succeeded(), r->Describe() << " " << r->stderr_data);
  BOOST_TEST(r->stdout_data == "permission_denied\n", "got " << r->stdout_data << r->stderr_data);
  BOOST_TEST(r->stderr_data.find("read-only") != std::string::npos, r->stderr_data);
  // Read-only inspection works (as root here, harmlessly).
  auto o = DefaultOptions();
  o.read_only = true;
  auto log = EventLog::Open(state, o);
  BOOST_REQUIRE_MESSAGE(log.ok(), log.status());
  BOOST_TEST((*log)->ReadAll()->size() == 5u);
  log->reset();
  BOOST_TEST((Files(state) == before));
  fs::permissions(state, fs::perms::owner_all);
}

BOOST_AUTO_TEST_CASE(meta_that_disagrees_with_the_log_is_caught_at_open) {
  TempDir dir;
  MakeStore(dir.path(), 6);
  RawPut(dir.path(), "meta", kMetaLastGlobal, BigEndian64(4));
  auto log = EventLog::Open(dir.path(), DefaultOptions());
  BOOST_TEST(log.status().code() == Code::kCorruption);
  BOOST_TEST(log.status().message().find("verify") != std::string::npos, log.status());
}

BOOST_AUTO_TEST_SUITE_END()
