// Access and secrets: the Unix socket is not world-accessible, TCP without
// the token is refused, and neither the TCP token nor a provider API key
// appears in the daemon's log, events, /metrics, error replies or the raw
// RocksDB files -- even when the provider echoes the key in a 401 reply.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <random>

#include "base/subprocess.hpp"
#include "tests/reliability/rel_util.hpp"

using namespace accelopt;
using namespace accelopt::testing;
using namespace accelopt::testing::rel;

namespace {

int FreePort() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  close(s);
  return ntohs(a.sin_port);
}

std::string RandomHex(int n) {
  std::random_device rd;
  std::string s;
  for (int i = 0; i < n; ++i) s += "0123456789abcdef"[rd() % 16];
  return s;
}

// (status, body) of curl against the TCP listener.
std::pair<std::string, std::string> CurlTcp(int port, const std::string& path, const std::vector<std::string>& extra) {
  ProcessSpec spec;
  spec.argv = {"curl", "-s", "-w", "\n%{http_code}"};
  for (const auto& e : extra) spec.argv.push_back(e);
  spec.argv.push_back("http://127.0.0.1:" + std::to_string(port) + path);
  auto r = RunProcess(spec);
  if (!r.ok()) return {"error", ""};
  std::string out = r->stdout_data;
  size_t nl = out.rfind('\n');
  return {out.substr(nl + 1), out.substr(0, nl)};
}

}  // namespace

BOOST_AUTO_TEST_CASE(tokens_and_api_keys_never_leak) {
  const std::string key = "sk-relkey" + RandomHex(32);
  const std::string token = "reltoken" + RandomHex(32);
  json script = StandardScript(20);
  json rules = json::array(
      {{{"name", "auth"},
        {"match", {{"system_contains", "planning the next optimization"}, {"times", 1}}},
        {"fault", {{"kind", "status"}, {"status", 401}, {"message", "Incorrect API key provided: " + key}}}}});
  for (auto& r : script["rules"]) rules.push_back(r);
  script["rules"] = rules;
  DaemonFixture f(script);
  int port = FreePort();
  json cfg = json::parse(ReadFile(f.config_path));
  cfg["providers"]["fake"]["api_key_env"] = "ACCELOPT_REL_API_KEY";
  cfg["listen"]["tcp"] = "127.0.0.1:" + std::to_string(port);
  cfg["listen"]["tcp_token_env"] = "ACCELOPT_REL_TOKEN";
  std::ofstream(f.config_path) << cfg.dump(1);
  f.StartDaemon({"ACCELOPT_REL_API_KEY=" + key, "ACCELOPT_REL_TOKEN=" + token});

  // The Unix socket: owner and group only.
  struct stat st;
  BOOST_REQUIRE(stat(f.socket.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0007) == 0u);

  // TCP: refused without the right token; the replies never echo a token.
  std::vector<std::string> replies;
  auto no_token = CurlTcp(port, "/v1/health", {});
  BOOST_TEST(no_token.first == "401");
  auto wrong = CurlTcp(port, "/v1/campaigns", {"-H", "Authorization: Bearer " + key});
  BOOST_TEST(wrong.first == "401");
  auto ok = CurlTcp(port, "/v1/health", {"-H", "Authorization: Bearer " + token});
  BOOST_TEST(ok.first == "200");
  auto not_found = CurlTcp(port, "/v1/campaigns/" + key, {"-H", "Authorization: Bearer " + token});
  BOOST_TEST(not_found.first == "404");
  replies = {no_token.second, wrong.second, ok.second, not_found.second};
  // Error replies that would echo a secret sent by a client.
  replies.push_back(
      f.Http("POST", "/v1/campaigns", R"({"spec": {"suite": "suites/test", "problems": [")" + key + R"("]}})").second);
  replies.push_back(
      f.Http("POST", "/v1/campaigns",
             R"({"spec": {"suite": "suites/test", "problems": ["silu"], "roles": {"planner": {"model": ")" + token +
                 R"("}}}})")
          .second);

  // A campaign whose first planner call is refused with the key in the reply:
  // a 401 fails every call, so the campaign fails with the provider's
  // message (scrubbed) in its reason.
  std::string id = Submit(f, SmallSpec({"silu"}, 1, 1, 2, 1));
  std::string state = WaitFinished(f, id, std::chrono::seconds(180));
  BOOST_TEST(state == "failed");
  auto got = f.Ctl({"get", id, "-o", "json"});
  BOOST_TEST(got.out.find("Incorrect API key provided") != std::string::npos, got.out);
  json reqs = f.FakeRequests();
  BOOST_REQUIRE(!reqs.empty());
  // The key really was planted: the provider received it.
  BOOST_TEST(reqs[0]["headers"].dump().find(key) != std::string::npos);
  auto events_json = f.Ctl({"events", id, "-o", "json"});
  BOOST_REQUIRE_EQUAL(events_json.exit_code, 0);
  bool auth_failure = false;
  for (const auto& e : ApiEvents(f, id))
    if (e["type"] == "LlmCallFailed") {
      auth_failure = true;
      BOOST_TEST_MESSAGE("auth failure recorded as: " << e["data"]["error"].dump());
    }
  BOOST_TEST(auth_failure);
  auto metrics = f.Http("GET", "/metrics");
  BOOST_TEST(metrics.first == 200);
  auto report = f.Ctl({"report", id, "-o", "json"});
  BOOST_TEST(f.StopDaemon() == 0);

  std::string log = ReadFile(f.daemon_log);
  std::string raw_store = ReadTree(f.dir + "/state");
  BOOST_TEST(!raw_store.empty());
  struct Place {
    std::string name, text;
  };
  std::vector<Place> places = {{"daemon log", log},          {"events -o json", events_json.out + events_json.err},
                               {"/metrics", metrics.second}, {"report", report.out + report.err},
                               {"get", got.out + got.err},   {"raw state dir", raw_store}};
  for (size_t i = 0; i < replies.size(); ++i) places.push_back({"reply " + std::to_string(i), replies[i]});
  for (const auto& p : places) {
    BOOST_TEST(p.text.find(key) == std::string::npos, "API key found in " << p.name);
    BOOST_TEST(p.text.find(token) == std::string::npos, "TCP token found in " << p.name);
    // Not even a long fragment of them.
    BOOST_TEST(p.text.find(key.substr(8, 20)) == std::string::npos, "API key fragment found in " << p.name);
    BOOST_TEST(p.text.find(token.substr(8, 20)) == std::string::npos, "token fragment found in " << p.name);
  }
}

// The judge's sandbox as an unprivileged user (the unit runs acceloptd as
// `accelopt`, not root): a whole evaluation by accelopt-eval as uid 65534
// (nobody) gets its private namespaces, Landlock and seccomp: an honest
// kernel is measured, and a kernel calling shmget (SysV IPC, class C of
// judge round 3) is stopped by the sandbox. Everything it reads is copied to
// a folder of its own first (a CI checkout may sit under a 0700 home).
BOOST_AUTO_TEST_CASE(the_judge_sandbox_works_as_an_unprivileged_user) {
  if (geteuid() != 0) {
    BOOST_TEST_MESSAGE("skipped: needs root to become another user");
    return;
  }
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("accelopt-nobody-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir / "cache");
  const std::string src = SourceDir();
  fs::copy(src + "/tests/evaluators/problems/silu", dir / "silu", fs::copy_options::recursive);
  fs::copy(src + "/tests/evaluators/problems/matmul", dir / "matmul", fs::copy_options::recursive);
  fs::copy_file(src + "/tests/evaluators/cheats/attack_sysv_shm.cpp", dir / "sysv.cpp");
  fs::copy_file(ACCELOPT_EVAL_PATH, dir / "accelopt-eval");
  for (const auto& e : fs::recursive_directory_iterator(dir)) BOOST_REQUIRE(chown(e.path().c_str(), 65534, 65534) == 0);
  BOOST_REQUIRE(chown(dir.c_str(), 65534, 65534) == 0);
  auto eval = [&](const std::string& problem, const std::string& kernel) {
    ProcessSpec spec;
    spec.argv = {"setpriv",
                 "--reuid=65534",
                 "--regid=65534",
                 "--clear-groups",
                 (dir / "accelopt-eval").string(),
                 "run",
                 "--problem",
                 (dir / problem).string(),
                 "--kernel",
                 (dir / kernel).string(),
                 "--cache-dir",
                 (dir / "cache").string(),
                 "--force-busy"};
    spec.env_set = {{"HOME", dir.string()}};
    spec.timeout = std::chrono::seconds(300);
    auto r = RunProcess(spec);
    BOOST_REQUIRE(r.ok());
    return *r;
  };
  auto honest = eval("silu", "silu/baseline.cpp");
  BOOST_TEST(honest.exit_code == 0, honest.stdout_data << honest.stderr_data);
  BOOST_TEST(honest.stdout_data.find("status       ok") != std::string::npos, honest.stdout_data);
  auto sysv = eval("matmul", "sysv.cpp");
  BOOST_TEST(sysv.stdout_data.find("forbidden system call (shmget)") != std::string::npos,
             sysv.stdout_data << sysv.stderr_data);
  std::error_code ec;
  fs::remove_all(dir, ec);
}
