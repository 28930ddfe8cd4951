#include <boost/test/unit_test.hpp>

#include <chrono>

#include "base/subprocess.hpp"

using namespace accelopt;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_CASE(captures_output_and_exit_code) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "cat; echo err >&2; exit 3"};
  spec.stdin_data = "hello";
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->stdout_data == "hello");
  BOOST_TEST(r->stderr_data == "err\n");
  BOOST_TEST(r->exit_code == 3);
  BOOST_TEST(!r->Succeeded());
}

BOOST_AUTO_TEST_CASE(timeout_kills_the_whole_group) {
  ProcessSpec spec;
  // A grandchild that would keep the pipe open for a minute.
  spec.argv = {"sh", "-c", "sleep 60 & sleep 60"};
  spec.timeout = 300ms;
  auto t0 = std::chrono::steady_clock::now();
  auto r = RunProcess(spec);
  auto took = std::chrono::steady_clock::now() - t0;
  BOOST_REQUIRE(r.ok());
  BOOST_TEST((r->outcome == ProcessResult::Outcome::kTimedOut));
  BOOST_TEST(took < 5s);
}

BOOST_AUTO_TEST_CASE(signal_is_reported) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "kill -SEGV $$"};
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST((r->outcome == ProcessResult::Outcome::kSignaled));
  BOOST_TEST(r->signal == 11);
  BOOST_TEST(r->Describe().find("signal 11") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(output_is_capped) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "head -c 100000 /dev/zero"};
  spec.max_output_bytes = 1000;
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->stdout_data.size() == 1000u);
  BOOST_TEST(r->stdout_truncated);
}

BOOST_AUTO_TEST_CASE(exec_failure_is_exit_127) {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/binary"};
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->exit_code == 127);
}

BOOST_AUTO_TEST_CASE(limits_apply) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "ulimit -f"};
  spec.limits.file_size_bytes = 512 * 10;
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->stdout_data == "10\n");
}
