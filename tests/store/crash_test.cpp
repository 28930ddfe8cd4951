// Crash test: a child process appends continuously and reports every
// acknowledged event through a pipe; we SIGKILL it at random moments, reopen
// the log and check that every acknowledged event is there, exactly as
// reported, that versions and positions are contiguous and heads match.
// Runs 20 x ACCELOPT_STRESS_SCALE kills.
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <sstream>

#include "store/event_log.hpp"
#include "store/inspect.hpp"
#include "tests/store/test_util.hpp"

extern char** environ;

using namespace accelopt;
using namespace accelopt::store;
using namespace accelopt::store::testing;
using Clock = std::chrono::steady_clock;

namespace {

struct Acked {
  std::string stream;
  uint64_t version = 0;
  std::string tag;
};

// Runs the child until killed; returns everything it reported.
std::string RunAndKill(const std::string& dir, uint64_t seed, std::mt19937_64& rng, bool* saw_output) {
  int fds[2];
  BOOST_REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  std::string seed_s = std::to_string(seed);
  std::vector<char*> argv = {const_cast<char*>(STORE_CRASH_CHILD), const_cast<char*>(dir.c_str()), seed_s.data(),
                             nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, STORE_CRASH_CHILD, &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  BOOST_REQUIRE_MESSAGE(rc == 0, "posix_spawn failed: " << rc);

  // Kill either early (startup, creation, first appends) or a random time
  // after the first acknowledgement.
  bool early = rng() % 5 == 0;
  auto start = Clock::now();
  auto deadline = start + std::chrono::milliseconds(early ? rng() % 150 : 5000);
  bool deadline_from_first_output = !early;
  std::string out;
  char buf[65536];
  bool killed = false;
  for (;;) {
    auto now = Clock::now();
    if (!killed && now >= deadline) {
      kill(pid, SIGKILL);
      killed = true;
    }
    int wait_ms =
        killed ? 1000
               : static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()) + 1;
    pollfd p{fds[0], POLLIN, 0};
    int pr = poll(&p, 1, wait_ms);
    if (pr < 0 && errno == EINTR) continue;
    if (pr > 0) {
      ssize_t n = read(fds[0], buf, sizeof buf);
      if (n > 0) {
        out.append(buf, static_cast<size_t>(n));
        if (deadline_from_first_output) {
          deadline = Clock::now() + std::chrono::milliseconds(10 + rng() % 250);
          deadline_from_first_output = false;
        }
        continue;
      }
      if (n == 0) break;  // EOF: the child is gone
    }
    if (killed && pr == 0) break;  // nothing more is coming
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  // The child must have died from our signal, not on its own.
  BOOST_TEST((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL),
             "child exited by itself (status " << status << ") after " << out.size() << " bytes");
  *saw_output = !out.empty();
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(acknowledged_events_survive_sigkill) {
  TempDir dir;
  std::string state = dir.sub("state");
  std::mt19937_64 rng(std::random_device{}());
  const int kills = 20 * StressScale();
  std::map<uint64_t, Acked> acked;  // by global position
  int rounds_with_output = 0;
  for (int round = 0; round < kills; ++round) {
    bool saw = false;
    std::string out = RunAndKill(state, static_cast<uint64_t>(round), rng, &saw);
    rounds_with_output += saw;
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream f(line);
      Acked a;
      uint64_t global = 0;
      f >> a.stream >> a.version >> global >> a.tag;
      BOOST_REQUIRE_MESSAGE(!f.fail() && global > 0, "bad line from the child: " << line);
      BOOST_REQUIRE_MESSAGE(acked.emplace(global, a).second, "global position " << global << " acknowledged twice");
    }

    // Reopen and check.
    auto o = DefaultOptions();
    o.create_if_missing = false;
    auto log = EventLog::Open(state, o);
    if (!log.ok() && log.status().code() == Code::kNotFound && acked.empty()) continue;  // killed before creating
    BOOST_REQUIRE_MESSAGE(log.ok(), "reopen after kill " << round << ": " << log.status());
    EventLog& l = **log;
    uint64_t last = l.LastGlobalPosition();
    BOOST_REQUIRE(acked.empty() || acked.rbegin()->first <= last);
    // Contiguity (ReadAll fails on a gap) and every acknowledged event as reported.
    auto all = l.ReadAll();
    BOOST_REQUIRE_MESSAGE(all.ok(), all.status());
    BOOST_REQUIRE_EQUAL(all->size(), last);
    for (const auto& [global, a] : acked) {
      const EventRecord& r = (*all)[global - 1];
      BOOST_REQUIRE_EQUAL(r.global_position, global);
      BOOST_REQUIRE_EQUAL(r.stream, a.stream);
      BOOST_REQUIRE_EQUAL(r.version, a.version);
      BOOST_REQUIRE_EQUAL(r.data.value("tag", ""), a.tag);
    }
    std::map<std::string, uint64_t> heads;
    for (const auto& e : *all) {
      BOOST_REQUIRE_EQUAL(e.version, heads[e.stream] + 1);
      heads[e.stream] = e.version;
    }
    for (const auto& [stream, head] : heads) {
      BOOST_REQUIRE_EQUAL(l.Head(stream), head);
      auto events = l.ReadStream(stream);
      BOOST_REQUIRE(events.ok());
      BOOST_REQUIRE_EQUAL(events->size(), head);
    }
    BOOST_REQUIRE_EQUAL(l.ListStreams().size(), heads.size());
    VerifyReport report = Verify(*l.store_db(), &TestRegistry());
    BOOST_REQUIRE_MESSAGE(report.ok(), "verify after kill " << round << ": " << FirstProblem(report));
  }
  BOOST_TEST_MESSAGE(kills << " kills, " << acked.size() << " acknowledged events checked");
  // The test is only meaningful if the child got to append most times.
  BOOST_TEST(rounds_with_output >= kills / 2);
  BOOST_TEST(acked.size() >= static_cast<size_t>(kills) * 5);
}
