// The dashboard (daemon/dashboard.hpp) in headless Chromium over the
// daemon's TCP listener with a bearer token:
//  - a running campaign's page shows it running, then completed (two page
//    loads; see the note in the test), with the report frame, a screenshot kept
//    as <build>/tests/daemon/dashboard.png for people to look at;
//  - LLM-written text (a hostile plan and memory title) shows as text, never
//    as markup;
//  - the campaigns and memory pages show the campaign and the bank's items;
//  - without the token the UI is refused on TCP; ?token= is taken for the
//    page only, not for data; the change feed ends when the daemon stops.
// Also `acceloptd --dev`: starts from the build tree and prints the socket.
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "base/subprocess.hpp"
#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const std::string kToken = "dashboard-token-0123456789abcdef";
const std::string kHostile = "<img src=x onerror=\"document.body.dataset.pwned='yes'\"><script>document.body.dataset.pwned='yes'</script>";

// The standard script with LLM replies that carry markup.
json HostileScript(int latency_ms) {
  json s = StandardScript(latency_ms);
  for (json& rule : s["rules"]) {
    if (rule["name"] == "plan") rule["reply"]["text"] = "Reorder " + kHostile + "\nStream rows of B contiguously.";
    if (rule["name"] == "summarize")
      rule["reply"]["text"] = "**Interchange " + kHostile + "**\nWalk memory contiguously.\n```cpp\nslow\n```\n```cpp\nfast\n```\n";
  }
  return s;
}

// A fixture whose daemon also listens on TCP with kToken.
struct TcpDaemon {
  explicit TcpDaemon(const json& script) : f(script), port(FreeTcpPort()) {
    auto cfg = json::parse(std::ifstream(f.config_path));
    cfg["listen"]["tcp"] = "127.0.0.1:" + std::to_string(port);
    cfg["listen"]["tcp_token_env"] = "ACCELOPT_UI_TOKEN";
    std::ofstream(f.config_path) << cfg.dump();
    f.StartDaemon({"ACCELOPT_UI_TOKEN=" + kToken});
  }
  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port) + path; }
  DaemonFixture f;
  int port;
};

// curl: "<http code>\n<headers and body>".
std::string Curl(const std::vector<std::string>& args) {
  ProcessSpec spec;
  spec.argv = {"curl", "-s", "-i", "--max-time", "5", "-w", "\n%{http_code}"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  auto r = RunProcess(spec);
  return r.ok() ? r->stdout_data : std::string("curl failed");
}
std::string HttpCode(const std::string& curl_out) { return curl_out.substr(curl_out.rfind('\n') + 1); }

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(dashboard_follows_a_running_campaign_in_chromium) {
  const std::string chromium = FindChromium();
  TcpDaemon d(HostileScript(400));
  json spec = SmallSpec({"matmul"}, 3, 1, 2, 1);
  spec["memory"] = {{"scope", "bank"}, {"bank", "ui-bank"}};
  const std::string spec_path = WriteJson(d.f, "spec.json", spec);
  auto r = d.f.Ctl({"submit", spec_path, "-o", "json"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string id = r.Json()["id"];

  // The page while the campaign runs, then after it ended. (One page load
  // that follows the campaign to its end is what a person sees, but
  // Chromium's --virtual-time-budget does not wait for a streamed fetch
  // here, so the live path is checked by change_feed_test and
  // dashboard_is_refused_on_tcp_without_the_token's stream.)
  const std::string page = d.Url("/ui/?token=" + kToken + "&stream_s=1#/campaign/" + id);
  auto shown = [&](const std::string& dom) {
    std::smatch m;
    BOOST_REQUIRE_MESSAGE(std::regex_search(dom, m, std::regex("id=\"progress\" data-done=\"([0-9]+)\"")),
                          dom.substr(0, 3000));
    std::smatch st;
    BOOST_REQUIRE(std::regex_search(dom, st, std::regex("id=\"state\" data-state=\"([a-z_]+)\"")));
    return std::make_pair(st[1].str(), std::stoi(m[1]));
  };
  const auto running = shown(RunChromium(chromium, d.f.dir, "--dump-dom", page, {"--virtual-time-budget=1500"}));
  BOOST_TEST(running.first == "running");
  auto w = d.f.Ctl({"wait", id});
  BOOST_REQUIRE_MESSAGE(w.exit_code == 0, w.err);
  const std::string dom = RunChromium(chromium, d.f.dir, "--dump-dom", page, {"--virtual-time-budget=1500"});
  const auto ended = shown(dom);
  BOOST_TEST(ended.first == "completed");
  BOOST_TEST(ended.second == 3);
  BOOST_TEST(running.second < ended.second, "progress " << running.second << " then " << ended.second);
  BOOST_TEST(dom.find("<li data-state=\"completed\" data-done=\"3\"") != std::string::npos);
  std::smatch m;
  BOOST_REQUIRE(std::regex_search(dom, m, std::regex("data-renders=\"([0-9]+)\"")));
  BOOST_TEST(std::stoi(m[1]) >= 1, "report renders: " << m[1]);
  BOOST_TEST(dom.find("data-pwned") == std::string::npos, "hostile markup ran");

  const std::string png = std::string(ACCELOPT_BINARY_DIR) + "/tests/daemon/dashboard.png";
  fs::remove(png);
  RunChromium(chromium, d.f.dir, "--screenshot=" + png, page, {"--virtual-time-budget=5000"});
  const std::string image = ReadAll(png);
  BOOST_REQUIRE_MESSAGE(image.size() > 20000, "screenshot " << png << " is " << image.size() << " bytes");

  // The campaigns page lists it as completed with its progress and spend.
  const std::string list = RunChromium(chromium, d.f.dir, "--dump-dom", d.Url("/ui/?token=" + kToken + "&stream_s=1#/"),
                                       {"--virtual-time-budget=2500"});
  BOOST_TEST(list.find("data-campaign=\"" + id + "\" data-state=\"completed\"") != std::string::npos, list.substr(0, 3000));
  BOOST_TEST(list.find("data-done=\"3\" data-total=\"3\"") != std::string::npos);

  // The memory bank page: the hostile title is there, as text.
  const std::string mem = RunChromium(chromium, d.f.dir, "--dump-dom",
                                      d.Url("/ui/?token=" + kToken + "&stream_s=1#/memory/ui-bank"),
                                      {"--virtual-time-budget=2500"});
  BOOST_REQUIRE_MESSAGE(mem.find("id=\"items\"") != std::string::npos, mem.substr(0, 3000));
  BOOST_TEST(mem.find("Interchange &lt;img src=x onerror=") != std::string::npos, mem.substr(0, 4000));
  BOOST_TEST(mem.find("<img src=\"x\"") == std::string::npos);
  BOOST_TEST(mem.find("data-pwned") == std::string::npos);
  BOOST_TEST(mem.find("data-item=\"") != std::string::npos);
  BOOST_TEST(d.f.StopDaemon() == 0);
  std::ifstream in(d.f.daemon_log);
  const std::string log((std::istreambuf_iterator<char>(in)), {});
  BOOST_TEST(log.find(kToken) == std::string::npos, "the token reached the log");
}

BOOST_AUTO_TEST_CASE(dashboard_is_refused_on_tcp_without_the_token) {
  TcpDaemon d(StandardScript(5));
  BOOST_TEST(HttpCode(Curl({d.Url("/ui/")})) == "401");
  BOOST_TEST(HttpCode(Curl({d.Url("/ui/?token=wrong-token-0123456789abcdef")})) == "401");
  BOOST_TEST(HttpCode(Curl({d.Url("/v1/stream")})) == "401");
  // The query token opens the page (no data in it), not the data routes.
  const std::string ok = Curl({d.Url("/ui/?token=" + kToken)});
  BOOST_TEST(HttpCode(ok) == "200");
  BOOST_TEST(ok.find("Content-Security-Policy: default-src 'none'; script-src 'sha256-") != std::string::npos);
  BOOST_TEST(ok.find("Referrer-Policy: no-referrer") != std::string::npos);
  BOOST_TEST(ok.find("http://") == std::string::npos);   // nothing from elsewhere
  BOOST_TEST(ok.find("https://") == std::string::npos);
  BOOST_TEST(HttpCode(Curl({d.Url("/v1/campaigns?token=" + kToken)})) == "401");
  BOOST_TEST(HttpCode(Curl({d.Url("/v1/stream?token=" + kToken)})) == "401");
  BOOST_TEST(HttpCode(Curl({"-H", "Authorization: Bearer " + kToken, d.Url("/ui/")})) == "200");
  // The Unix socket needs no token.
  BOOST_TEST(HttpCode(Curl({"--unix-socket", d.f.socket, "http://localhost/ui"})) == "200");

  // An open change feed (header auth) ends when the daemon stops.
  const std::string out = d.f.dir + "/stream.out";
  Child stream({"/usr/bin/curl", "-s", "-N", "-H", "Authorization: Bearer " + kToken, d.Url("/v1/stream")}, out);
  bool hello = false;
  for (int i = 0; i < 200 && !hello; ++i) {
    hello = ReadAll(out).find("event: hello") != std::string::npos;
    if (!hello) std::this_thread::sleep_for(25ms);
  }
  BOOST_REQUIRE_MESSAGE(hello, ReadAll(out));
  BOOST_TEST(ReadAll(out).find("retry: 1000") != std::string::npos);
  BOOST_TEST(d.f.StopDaemon() == 0);
  BOOST_TEST(stream.Wait(10s) == 0, "the stream did not end with the daemon");
}

BOOST_AUTO_TEST_CASE(acceloptd_dev_runs_from_the_build_tree_and_prints_the_socket) {
  char tmpl[] = "/tmp/accelopt-dev-test-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  // The test machines' calibration cache (a first start calibrates otherwise).
  std::ofstream(dir + "/base.json") << json{{"evaluators", {{"cpu", {{"slots", 1},
      {"cache_dir", std::string(ACCELOPT_BINARY_DIR) + "/test-eval-cache"}, {"calibration_force_busy", true}}}}}}.dump();
  const int port = FreeTcpPort();
  const std::string out = dir + "/out";
  Child daemon({AcceloptdPath(), "--dev", "--dev-dir", dir + "/dev", "--config", dir + "/base.json", "--tcp",
                "127.0.0.1:" + std::to_string(port)},
               out);
  std::string socket, dashboard;
  for (int i = 0; i < 1200 && (socket.empty() || dashboard.empty()); ++i) {
    std::istringstream lines(ReadAll(out));
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("ACCELOPT_SOCKET=")) socket = line.substr(16);
      if (line.starts_with("ACCELOPT_DASHBOARD=")) dashboard = line.substr(19);
    }
    if (socket.empty() || dashboard.empty()) std::this_thread::sleep_for(50ms);
  }
  BOOST_REQUIRE_MESSAGE(!socket.empty(), "no ACCELOPT_SOCKET line: " << ReadAll(out));
  BOOST_TEST(socket == dir + "/dev/acceloptd.sock");
  BOOST_TEST(dashboard == "http://127.0.0.1:" + std::to_string(port) + "/ui/?token=$(cat " + dir + "/dev/token)");
  ProcessSpec ctl;
  ctl.argv = {AcceloptctlPath(), "--socket", socket, "health"};
  auto h = RunProcess(ctl);
  BOOST_REQUIRE(h.ok());
  BOOST_TEST(h->exit_code == 0, h->stdout_data << h->stderr_data);
  ctl.argv = {AcceloptctlPath(), "--socket", socket, "suites", "-o", "json"};
  auto s = RunProcess(ctl);
  BOOST_REQUIRE(s.ok());
  BOOST_TEST(s->stdout_data.find(SourceDir() + "/suites/cpu") != std::string::npos, s->stdout_data);
  // The dashboard line works with the token file's content.
  std::string token = ReadAll(dir + "/dev/token");
  while (!token.empty() && token.back() == '\n') token.pop_back();
  BOOST_TEST(token.size() == 64u);
  BOOST_TEST(HttpCode(Curl({"http://127.0.0.1:" + std::to_string(port) + "/ui/?token=" + token})) == "200");
  BOOST_TEST(((fs::status(dir + "/dev/token").permissions() & fs::perms::group_read) == fs::perms::none));
  BOOST_TEST(ReadAll(out).find(token) == std::string::npos, "the token was printed");
  daemon.Signal(SIGTERM);
  BOOST_TEST(daemon.Wait(60s) == 0);
  fs::remove_all(dir);
}
