#include <boost/test/unit_test.hpp>

#include <grp.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

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

// The judge's sandbox as the unprivileged service user (systemd's
// User=accelopt): private network and IPC namespaces are granted through a
// user namespace that maps only the child's own uid and gid. Run here as
// uid/gid 65534 (nobody) in a forked process when the test runs as root.
// Before: unshare(CLONE_NEWNET) failed with EPERM for any non-root user, so
// every evaluation under the unit ran with the host's network.
BOOST_AUTO_TEST_CASE(private_namespaces_are_granted_to_an_unprivileged_user) {
  auto check = []() -> std::string {
    ProcessSpec spec;
    spec.argv = {"sh", "-c", "id -u; id -g; cat /proc/self/net/dev; ls /proc/sysvipc >/dev/null && echo ipc-ok"};
    spec.private_network = true;
    spec.private_ipc = true;
    auto r = RunProcess(spec);
    if (!r.ok()) return "RunProcess: " + r.status().ToString();
    if (!r->network_isolated) return "network not isolated: " + r->stderr_data;
    if (!r->ipc_isolated) return "ipc not isolated";
    const std::string uid = std::to_string(getuid()), gid = std::to_string(getgid());
    if (r->stdout_data.rfind(uid + "\n" + gid + "\n", 0) != 0) return "uid/gid not kept: " + r->stdout_data;
    // Only the loopback interface: two header lines and "lo".
    size_t ifaces = 0;
    for (size_t at = 0; (at = r->stdout_data.find(':', at)) != std::string::npos; ++at) ++ifaces;
    if (r->stdout_data.find("lo:") == std::string::npos || ifaces != 1) return "interfaces: " + r->stdout_data;
    return "";
  };
  if (getuid() != 0) {
    BOOST_TEST(check() == "");
    return;
  }
  int fds[2];
  BOOST_REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
    // A process started as the user (systemd's User=) is dumpable; one that
    // changed its uid from root is not, and could not write its own
    // /proc/self/uid_map.
    if (prctl(PR_SET_DUMPABLE, 1) != 0) _exit(4);
    const std::string why = check();
    (void)!write(fds[1], why.data(), why.size());
    _exit(why.empty() ? 0 : 1);
  }
  close(fds[1]);
  std::string why;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) why.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0, "as uid 65534: " << why);
}
