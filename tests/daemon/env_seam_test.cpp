// The daemon's own file, variable and lock accesses go through the Env
// (base/env.hpp): the state-directory lock, --dev's folder, the config and
// the TCP token. Each file operation fails in turn (FaultyFileEnv, after
// leveldb's fault-injection tests) and the error names it; nothing crashes
// and nothing is left half done that the next start would trip over.
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "base/env.hpp"
#include "daemon/config.hpp"
#include "daemon/dev_mode.hpp"
#include "daemon/state_lock.hpp"
#include "tests/daemon/daemon_fixture.hpp"

namespace accelopt::daemon {
namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/accelopt-env-seam-XXXXXX";
  return mkdtemp(tmpl);
}

// A FaultyFileEnv whose environment variables are the test's own.
class TestEnv : public FaultyFileEnv {
 public:
  TestEnv() : FaultyFileEnv(Env::Default()) {}
  std::map<std::string, std::string> vars;
  std::optional<std::string> GetEnvVar(const std::string& name) override {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  }
};

BOOST_AUTO_TEST_CASE(the_state_lock_goes_through_the_env) {
  const std::string dir = TempDir();
  TestEnv env;
  auto first = StateLock::Acquire(dir, &env);
  BOOST_REQUIRE_MESSAGE(first.ok(), first.status().ToString());
  auto second = StateLock::Acquire(dir, &env);
  BOOST_REQUIRE(!second.ok());
  BOOST_TEST(second.status().code() == Code::kFailedPrecondition);
  BOOST_TEST(second.status().message() == "state directory " + dir + " is in use by acceloptd (pid " +
                                              std::to_string(getpid()) + "); stop it first");
  first->reset();
  env.ResetCount();
  env.FailAt(1);
  auto failed = StateLock::Acquire(dir, &env);
  BOOST_TEST(failed.status().message() == "injected fault: lock " + dir + "/acceloptd.lock");
  env.FailAt(0);
  BOOST_TEST(StateLock::Acquire(dir, &env).ok());  // nothing held after the failure
  (void)Env::Default()->RemoveAll(dir);
}

BOOST_AUTO_TEST_CASE(dev_setup_reports_the_nth_failing_file_operation) {
  TestEnv env;
  DevOptions o;
  o.source_dir = testing::SourceDir();
  o.tcp = "127.0.0.1:7777";  // not bound: only the config is made
  // Its file operations: mkdir the folder, chmod it (best effort), write the
  // token, chmod it (best effort), write the config; the suite folders are
  // queries (not counted).
  const std::vector<std::string> ops = {"mkdir", "chmod", "write", "chmod", "write"};
  for (int64_t n = 1; n <= static_cast<int64_t>(ops.size()) + 1; ++n) {
    o.dir = TempDir() + "/dev";
    env.ResetCount();
    env.FailAt(n);
    auto setup = PrepareDev(o, &env);
    BOOST_TEST_CONTEXT("operation " << n) {
      if (n <= static_cast<int64_t>(ops.size()) && ops[n - 1] != "chmod") {
        BOOST_REQUIRE(!setup.ok());
        BOOST_TEST(setup.status().code() == Code::kIOError);
        BOOST_TEST(setup.status().message().find("injected fault: " + ops[n - 1] + " " + o.dir) == 0,
                   setup.status().message());
      } else {
        BOOST_REQUIRE_MESSAGE(setup.ok(), setup.status().ToString());
        BOOST_TEST(setup->config.state_dir == o.dir + "/state");
      }
      // It stops at the first fatal failure.
      BOOST_TEST(env.operations() == (setup.ok() ? static_cast<int64_t>(ops.size()) : n));
    }
    (void)Env::Default()->RemoveAll(o.dir.substr(0, o.dir.size() - 4));
  }
}

BOOST_AUTO_TEST_CASE(config_and_token_come_through_the_env) {
  const std::string dir = TempDir();
  TestEnv env;
  BOOST_REQUIRE(env.WriteFileAtomic(dir + "/acceloptd.json", R"({"state_dir": "state", "suites": {"t": "."}})").ok());
  env.ResetCount();
  env.FailAt(1);
  auto c = LoadDaemonConfig(dir + "/acceloptd.json", &env);
  BOOST_TEST(c.status().message() == "injected fault: read " + dir + "/acceloptd.json");
  env.FailAt(0);
  c = LoadDaemonConfig(dir + "/acceloptd.json", &env);
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  BOOST_TEST(c->state_dir == dir + "/state");

  DaemonConfig tc;
  tc.tcp_token_env = "ACCELOPT_TEST_TOKEN";
  BOOST_TEST(!LoadTcpToken(tc, &env).ok());  // not in this Env's variables (whatever the process has)
  env.vars["ACCELOPT_TEST_TOKEN"] = "0123456789abcdef-token";
  BOOST_TEST(LoadTcpToken(tc, &env).value() == "0123456789abcdef-token");
  tc = DaemonConfig{};
  tc.tcp_token_file = "token";  // relative: under $CREDENTIALS_DIRECTORY
  env.vars["CREDENTIALS_DIRECTORY"] = dir;
  BOOST_REQUIRE(env.WriteFileAtomic(dir + "/token", "fedcba9876543210-file\n").ok());
  BOOST_TEST(LoadTcpToken(tc, &env).value() == "fedcba9876543210-file");
  env.FailAt(env.operations() + 1);
  BOOST_TEST(LoadTcpToken(tc, &env).status().message() == "listen.tcp_token_file: cannot read " + dir + "/token");
  (void)Env::Default()->RemoveAll(dir);
}

}  // namespace
}  // namespace accelopt::daemon
