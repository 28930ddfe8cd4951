// Disk full: the state directory is a small tmpfs that fills up during a
// campaign. Appends fail, the daemon reports unhealthy (503) and refuses new
// work; after space is freed and the daemon restarts, nothing acknowledged is
// lost and the campaign completes. Needs root (mount); skipped otherwise.
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <map>
#include <thread>

#include "tests/reliability/rel_util.hpp"

using namespace accelopt;
using namespace accelopt::testing;
using namespace accelopt::testing::rel;
namespace fs = std::filesystem;

namespace {

boost::test_tools::assertion_result CanMountTmpfs(boost::unit_test::test_unit_id) {
  char tmpl[] = "/tmp/accelopt-mount-probe-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  bool ok = mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=1m") == 0;
  if (ok) umount(dir.c_str());
  rmdir(dir.c_str());
  boost::test_tools::assertion_result r(ok);
  if (!ok) r.message() << "cannot mount a tmpfs here (needs root): disk-full test skipped";
  return r;
}

// Kills the daemon and unmounts the state dir before the fixture removes it.
struct Unmounter {
  DaemonFixture* f;
  std::string dir;
  ~Unmounter() {
    f->daemon = Child();
    if (umount(dir.c_str()) != 0) umount2(dir.c_str(), MNT_DETACH);
  }
};

// Writes until ENOSPC; returns the bytes written.
size_t Fill(const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 0;
  std::string chunk(1 << 20, 'f');
  size_t total = 0;
  for (size_t size : {size_t(1) << 20, size_t(4096), size_t(1)}) {
    for (;;) {
      ssize_t n = write(fd, chunk.data(), size);
      if (n <= 0) break;
      total += static_cast<size_t>(n);
    }
  }
  close(fd);
  return total;
}

}  // namespace

// Was disabled until RocksDB's info LOG moved off the state directory's file
// system (store/rocks_logger.hpp): RocksDB 7.8 aborted in an assertion when
// its no-space recovery logged through a LOG writer that had hit ENOSPC.
BOOST_AUTO_TEST_CASE(disk_full_fails_stop_and_loses_nothing_acknowledged,
                     *boost::unit_test::precondition(CanMountTmpfs)) {
  DaemonFixture f(StandardScript(200));
  std::string state_dir = f.dir + "/state";
  fs::create_directories(state_dir);
  BOOST_REQUIRE(mount("tmpfs", state_dir.c_str(), "tmpfs", 0, "size=48m") == 0);
  Unmounter guard{&f, state_dir};
  f.StartDaemon();
  std::string id = Submit(f, SmallSpec({"silu"}, 2, 1, 2, 1));
  // Let some work be recorded, then take every free byte.
  json before;
  for (int i = 0; i < 300; ++i) {
    before = ApiEvents(f, id);
    if (CountType(before, "LlmCallCompleted") >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  BOOST_REQUIRE(CountType(before, "LlmCallCompleted") >= 2);
  size_t filled = Fill(state_dir + "/filler");
  BOOST_TEST_MESSAGE("filled " << filled << " bytes");
  before = ApiEvents(f, id);  // acknowledged: read by a client

  // The next append fails; the daemon turns unhealthy and refuses new work.
  long health = 0;
  for (int i = 0; i < 600 && health != 503; ++i) {
    health = f.Http("GET", "/v1/health").first;
    if (health != 503) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  BOOST_REQUIRE_EQUAL(health, 503);
  auto [submit_status, submit_body] =
      f.Http("POST", "/v1/campaigns", json{{"spec", SmallSpec({"silu"}, 1, 1, 1, 1)}}.dump());
  BOOST_TEST(submit_status == 503);
  BOOST_TEST(submit_body.find("unavailable") != std::string::npos);
  json during = ApiEvents(f, id);  // reads still work
  BOOST_TEST(during.size() >= before.size());
  auto [mstatus, metrics] = f.Http("GET", "/metrics");
  BOOST_TEST(metrics.find("accelopt_event_log_healthy 0") != std::string::npos);

  // Free the space, restart: nothing acknowledged is lost; the campaign completes.
  fs::remove(state_dir + "/filler");
  int code = f.StopDaemon();
  if (code < 0) f.KillDaemon();
  BOOST_TEST_MESSAGE("daemon exited with " << code << " after the disk-full failure");
  f.StartDaemon();
  BOOST_TEST(f.Http("GET", "/v1/health").first == 200);
  json after = ApiEvents(f, id);
  BOOST_REQUIRE(after.size() >= during.size());
  for (size_t i = 0; i < during.size(); ++i) BOOST_TEST(after[i] == during[i], "event " << i + 1 << " changed or lost");
  for (size_t i = 0; i < after.size(); ++i) BOOST_TEST(after[i]["version"].get<size_t>() == i + 1);
  BOOST_TEST(WaitFinished(f, id, std::chrono::seconds(240)) == "completed");
}
