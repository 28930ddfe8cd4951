// The dashboard (daemon/dashboard.hpp) in headless Chromium over the
// daemon's TCP listener with a bearer token:
//  - one load of a running campaign's page, and of the campaigns page, left
//    open (HeadlessBrowser: Chromium over the DevTools pipe) follows the
//    campaign from running to completed as change events arrive: progress
//    grows, the page's update log and the report frame grow, the page is
//    never reloaded; screenshots kept as <build>/tests/daemon/dashboard-live.png
//    (mid-campaign) and dashboard.png (at the end) for people to look at;
//  - the LLM calls the dashboard shows are the report's;
//  - LLM-written text (a hostile plan and memory title) shows as text, never
//    as markup;
//  - the memory page shows the bank's items;
//  - without the token the UI is refused on TCP; ?token= is taken for the
//    page only, not for data; the change feed ends when the daemon stops.
// Also `acceloptd --dev`: starts from the build tree and prints the socket.
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "base/subprocess.hpp"
#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const std::string kToken = "dashboard-token-0123456789abcdef";
const std::string kHostile =
    "<img src=x onerror=\"document.body.dataset.pwned='yes'\"><script>document.body.dataset.pwned='yes'</script>";

// The standard script with LLM replies that carry markup.
json HostileScript(int latency_ms) {
  json s = StandardScript(latency_ms);
  for (json& rule : s["rules"]) {
    if (rule["name"] == "plan") rule["reply"]["text"] = "Reorder " + kHostile + "\nStream rows of B contiguously.";
    if (rule["name"] == "summarize")
      rule["reply"]["text"] =
          "**Interchange " + kHostile + "**\nWalk memory contiguously.\n```cpp\nslow\n```\n```cpp\nfast\n```\n";
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

// What the campaign page shows now (see daemon/ui/app.js for the ids);
// "origin" is the document's time origin: the same value means the same
// page load.
const char* kCampaignPageState = R"((() => {
  const q = (s) => document.querySelector(s);
  const num = (s, k) => { const n = q(s); return n && n.dataset[k] !== undefined ? Number(n.dataset[k]) : -1; };
  return { origin: performance.timeOrigin, view: q('#view') ? q('#view').dataset.view || '' : '',
           state: q('#state') ? q('#state').dataset.state : '', done: num('#progress', 'done'),
           calls: num('#llm-calls', 'calls'), renders: num('#report', 'renders'), updates: num('#view', 'updates'),
           live: q('#live') ? q('#live').dataset.state : '', streams: num('#live', 'streams'),
           timeline: [...document.querySelectorAll('#timeline li')].map((li) => li.dataset.state + ':' + li.dataset.done) };
})())";

// The campaigns page's row of campaign `id`.
std::string ListPageState(const std::string& id) {
  return R"((() => {
  const r = document.querySelector('tr[data-campaign="' + )" +
         json(id).dump() + R"( + '"]');
  const d = (sel, k) => { const n = r && r.querySelector(sel); return n ? Number(n.dataset[k]) : -1; };
  const live = document.getElementById('live');
  return { origin: performance.timeOrigin, state: r ? r.dataset.state : '', done: d('td[data-done]', 'done'),
           calls: d('td[data-llm-calls]', 'llmCalls'), streams: live ? Number(live.dataset.streams || -1) : -1 };
})())";
}

// The (state, progress) pairs a page went through, in order, without
// repeats, and when it first showed the end.
struct Seen {
  std::vector<std::pair<std::string, int>> steps;
  std::set<double> origins;
  std::chrono::steady_clock::time_point ended_at;
  void Add(const json& j) {
    origins.insert(j.value("origin", 0.0));
    std::pair<std::string, int> step{j.value("state", ""), j.value("done", -1)};
    if (!step.first.empty() && (steps.empty() || steps.back() != step)) steps.push_back(step);
    if (Ended() && ended_at == std::chrono::steady_clock::time_point{}) ended_at = std::chrono::steady_clock::now();
  }
  bool Ended() const { return !steps.empty() && steps.back().first != "running"; }
  std::string Str() const {
    std::string s;
    for (const auto& [st, done] : steps) s += st + ":" + std::to_string(done) + " ";
    return s;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(dashboard_follows_a_running_campaign_in_one_page_load) {
  const std::string chromium = FindChromium();
  TcpDaemon d(HostileScript(500));
  json spec = SmallSpec({"matmul"}, 3, 1, 2, 1);
  spec["memory"] = {{"scope", "bank"}, {"bank", "ui-bank"}};
  const std::string spec_path = WriteJson(d.f, "spec.json", spec);
  auto r = d.f.Ctl({"submit", spec_path, "-o", "json"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string id = r.Json()["id"];

  // One browser, two tabs opened while the campaign runs and left open: the
  // campaign page and the campaigns page. Nothing reloads them; what they
  // show next comes from the change feed (GET /v1/stream), whose streams
  // outlive the campaign here (the default lifetime), so a page that does
  // not follow the feed stays at its first read and this test fails; each
  // page must show the end within seconds of the daemon's saying so.
  HeadlessBrowser browser(chromium, d.f.dir);
  const std::string page = browser.Open(d.Url("/ui/?token=" + kToken + "#/campaign/" + id));
  const std::string list = browser.Open(d.Url("/ui/?token=" + kToken + "#/"));
  const std::string png_live = std::string(ACCELOPT_BINARY_DIR) + "/tests/daemon/dashboard-live.png";
  const std::string png = std::string(ACCELOPT_BINARY_DIR) + "/tests/daemon/dashboard.png";
  fs::remove(png_live);
  fs::remove(png);
  Seen page_seen, list_seen;
  json last_page, last_list;
  bool live_shot = false;
  std::chrono::steady_clock::time_point api_ended_at{};
  const auto deadline = std::chrono::steady_clock::now() + 240s;
  while (std::chrono::steady_clock::now() < deadline && !(page_seen.Ended() && list_seen.Ended())) {
    last_page = browser.Eval(page, kCampaignPageState);
    last_list = browser.Eval(list, ListPageState(id));
    if (api_ended_at == std::chrono::steady_clock::time_point{} &&
        json::parse(d.f.Http("GET", "/v1/campaigns/" + id).second).value("state", "") != "running")
      api_ended_at = std::chrono::steady_clock::now();
    if (last_page.value("view", "") == "campaign") page_seen.Add(last_page);
    if (last_list.value("state", "") != "") list_seen.Add(last_list);
    // The live page, mid-campaign, for people to look at.
    if (!live_shot && last_page.value("state", "") == "running" && last_page.value("done", 0) >= 2 &&
        last_page.value("renders", 0) >= 2) {
      browser.Screenshot(page, png_live);
      live_shot = true;
    }
    std::this_thread::sleep_for(250ms);
  }
  BOOST_TEST_MESSAGE("campaign page: " << page_seen.Str() << "(feed streams " << last_page["streams"]
                                       << "); campaigns page: " << list_seen.Str() << "(feed streams "
                                       << last_list["streams"] << ")");
  BOOST_REQUIRE_MESSAGE(page_seen.Ended(),
                        "the campaign page never showed the end: " << page_seen.Str() << " last " << last_page.dump());
  // The page closes its feed when it reads the campaign's end, which may come
  // a moment after the report render that showed it: allow it 10 s (the
  // bound for showing the end below), then check below that it did.
  for (const auto closed_by = std::chrono::steady_clock::now() + 10s;
       last_page.value("live", "") != "done" && std::chrono::steady_clock::now() < closed_by;) {
    std::this_thread::sleep_for(250ms);
    last_page = browser.Eval(page, kCampaignPageState);
  }
  BOOST_REQUIRE_MESSAGE(list_seen.Ended(),
                        "the campaigns page never showed the end: " << list_seen.Str() << " last " << last_list.dump());
  for (const Seen* seen : {&page_seen, &list_seen}) {
    const auto late = std::chrono::duration_cast<std::chrono::milliseconds>(seen->ended_at - api_ended_at);
    BOOST_TEST(late.count() < 10000, "the end showed " << late.count() << " ms after the API's");
    BOOST_TEST(seen->origins.size() == 1u, "a page was loaded again");
    BOOST_REQUIRE(seen->steps.size() >= 3u);  // running at least twice, with more progress, then completed
    BOOST_TEST(seen->steps.front().first == "running", seen->Str());
    BOOST_TEST(seen->steps.front().second < 3, seen->Str());
    BOOST_TEST(seen->steps.back().first == "completed", seen->Str());
    BOOST_TEST(seen->steps.back().second == 3, seen->Str());
    for (size_t i = 1; i < seen->steps.size(); ++i) BOOST_TEST(seen->steps[i - 1].second <= seen->steps[i].second);
  }
  // The page's own log of what it was told: running, then completed.
  const json& timeline = last_page["timeline"];
  BOOST_TEST(timeline.size() >= 3u, timeline.dump());
  BOOST_TEST(timeline.front().get<std::string>().starts_with("running:"), timeline.dump());
  BOOST_TEST(timeline.back() == "completed:3", timeline.dump());
  BOOST_TEST(last_page["updates"].get<int>() >= 2, "change events: " << last_page["updates"]);
  BOOST_TEST(last_page["renders"].get<int>() >= 3, "report renders: " << last_page["renders"]);
  BOOST_TEST(last_page["live"] == "done");  // the page closed its feed: "campaign ended"
  BOOST_TEST(live_shot, "no screenshot while running: " << page_seen.Str());

  // The page's LLM calls, the campaigns page's, the API's spend and the
  // report's (JSON and the HTML report's header in the page) are one count.
  const json summary = json::parse(d.f.Http("GET", "/v1/campaigns/" + id).second);
  const json report = json::parse(d.f.Http("GET", "/v1/campaigns/" + id + "/report").second);
  const int calls = summary["spend"]["llm_calls"];
  BOOST_TEST(calls > 0);
  BOOST_TEST(report["usage"]["total"]["calls"].get<int>() == calls);
  BOOST_TEST(last_page["calls"].get<int>() == calls);
  BOOST_TEST(last_list["calls"].get<int>() == calls);
  const std::string header =
      browser.Eval(page, "document.getElementById('report').contentDocument.querySelector('.meta').textContent");
  BOOST_TEST(header.find("LLM: " + std::to_string(calls) + " calls") != std::string::npos, header);

  const std::string dom = browser.Dom(page);
  BOOST_TEST(dom.find("data-pwned") == std::string::npos, "hostile markup ran");
  browser.Screenshot(page, png);
  BOOST_REQUIRE_MESSAGE(ReadAll(png).size() > 20000, "screenshot " << png << " is " << ReadAll(png).size() << " bytes");
  BOOST_REQUIRE_MESSAGE(ReadAll(png_live).size() > 20000, "screenshot " << png_live);

  // The memory bank page: the hostile title is there, as text.
  const std::string bank = browser.Open(d.Url("/ui/?token=" + kToken + "#/memory/ui-bank"));
  std::string mem;
  for (int i = 0; i < 200 && mem.find("data-item=\"") == std::string::npos; ++i) {
    std::this_thread::sleep_for(100ms);
    mem = browser.Dom(bank);
  }
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
  // The page without the token: 401 with a page that says how to add it
  // (it used to be the API's raw JSON error), and never the token itself.
  const std::string refused = Curl({d.Url("/ui/")});
  BOOST_TEST(HttpCode(refused) == "401");
  BOOST_TEST(refused.find("Content-Type: text/html") != std::string::npos, refused);
  BOOST_TEST(refused.find("This dashboard needs the daemon's token") != std::string::npos, refused);
  BOOST_TEST(refused.find("/ui/?token=") != std::string::npos);
  BOOST_TEST(refused.find("listen.tcp_token_file") != std::string::npos);
  const std::string wrong = Curl({d.Url("/ui/?token=wrong-token-0123456789abcdef")});
  BOOST_TEST(HttpCode(wrong) == "401");
  BOOST_TEST(wrong.find(kToken) == std::string::npos);
  BOOST_TEST(wrong.find("wrong-token-0123456789abcdef") == std::string::npos);  // not echoed
  {
    // As a browser shows it.
    const std::string chromium = FindChromium();
    const char* screens = std::getenv("ACCELOPT_SCREENS_DIR");
    const std::string dir = screens ? screens : std::string(ACCELOPT_BINARY_DIR) + "/tests/daemon";
    fs::create_directories(dir);
    RunChromium(chromium, d.f.dir, "--screenshot=" + dir + "/dashboard-401.png", d.Url("/ui/"),
                {"--window-size=1000,600"});
    BOOST_TEST(ReadAll(dir + "/dashboard-401.png").size() > 5000u);
  }
  BOOST_TEST(HttpCode(Curl({d.Url("/v1/stream")})) == "401");
  BOOST_TEST(Curl({d.Url("/v1/stream")}).find("\"unauthorized\"") != std::string::npos);  // data routes: JSON
  // The query token opens the page (no data in it), not the data routes.
  const std::string ok = Curl({d.Url("/ui/?token=" + kToken)});
  BOOST_TEST(HttpCode(ok) == "200");
  BOOST_TEST(ok.find("Content-Security-Policy: default-src 'none'; script-src 'sha256-") != std::string::npos);
  BOOST_TEST(ok.find("Referrer-Policy: no-referrer") != std::string::npos);
  // Nothing from elsewhere. (The SVG namespace name the lineage graph is
  // created with is an identifier, never fetched.)
  const std::string no_ns = std::regex_replace(ok, std::regex("http://www\\.w3\\.org/2000/svg"), "");
  BOOST_TEST(no_ns.find("http://") == std::string::npos);
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

BOOST_AUTO_TEST_CASE(a_change_feed_stream_outlives_the_write_deadline) {
  // Streams used to end after the write deadline (60 s by default) whatever
  // their max_s: the read that watches for the peer leaving kept the
  // deadline WriteNext had just set (daemon/http_server.cpp). The dashboard
  // re-reads after a reconnect, but max_s is the contract (docs/api.md).
  // The deadline is 3 s here (listen.write_timeout_s) and the stream asks for
  // 9 s: with the old code it ended after about 3 s.
  DaemonFixture f(StandardScript(5), {{"listen", {{"write_timeout_s", 3}}}});
  f.StartDaemon();
  const std::string out = f.dir + "/long-stream.out";
  const auto start = std::chrono::steady_clock::now();
  Child stream(
      {"/usr/bin/curl", "-s", "-N", "--unix-socket", f.socket, "http://localhost/v1/stream?max_s=9&heartbeat_ms=500"},
      out);
  std::this_thread::sleep_for(7s);
  BOOST_TEST(stream.Wait(0ms) == -1, "the stream ended before its lifetime: " << ReadAll(out));
  BOOST_TEST(stream.Wait(20s) == 0);
  const auto lasted = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  BOOST_TEST(lasted.count() >= 8500);
  BOOST_TEST(lasted.count() < 25000);
  const std::string text = ReadAll(out);
  BOOST_TEST(text.find("event: hello") != std::string::npos);
  int beats = 0;
  for (size_t at = 0; (at = text.find(": heartbeat", at)) != std::string::npos; ++at) ++beats;
  BOOST_TEST(beats >= 12, beats << " heartbeats");
  BOOST_TEST(f.StopDaemon() == 0);
}

BOOST_AUTO_TEST_CASE(acceloptd_dev_runs_from_the_build_tree_and_prints_the_socket) {
  char tmpl[] = "/tmp/accelopt-dev-test-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  // The test machines' calibration cache (a first start calibrates otherwise).
  std::ofstream(dir + "/base.json") << json{{"evaluators",
                                             {{"cpu",
                                               {{"slots", 1},
                                                {"cache_dir", std::string(ACCELOPT_BINARY_DIR) + "/test-eval-cache"},
                                                {"calibration_force_busy", true}}}}}}
                                           .dump();
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

// One headline speedup per problem (workflows/report.hpp): the final
// interleaved re-measurement against the baseline, with its ~95% interval,
// is the same number in the report (JSON, text, HTML), `get`, `list`,
// `best` and the dashboard. (Before, `get`, `best` and the HTML showed the
// baseline's latency over the re-measured latency, each from its own run,
// while the text report's side-by-side line showed the interleaved ratio.)
BOOST_AUTO_TEST_CASE(one_headline_speedup_in_every_view) {
  const std::string chromium = FindChromium();
  TcpDaemon d(StandardScript(5));
  const std::string spec = WriteJson(d.f, "spec.json", SmallSpec({"matmul"}, 2, 1, 1, 1));
  auto r = d.f.Ctl({"submit", spec, "--wait", "-o", "json"}, 300);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string id = r.Json()["id"];
  const json report = d.f.Ctl({"report", id, "-o", "json"}).Json();
  const json& p = report["problems"][0];
  BOOST_REQUIRE_MESSAGE(p["speedup_source"] == "interleaved", p.dump());
  const double s = p["speedup"].get<double>();
  const json side = p["final"]["remeasured"]["interleaved_with_baseline"];
  BOOST_TEST(s == side["speedup"].get<double>());
  BOOST_TEST(p["speedup_low"].get<double>() == side["speedup_low"].get<double>());
  BOOST_TEST(p["speedup_high"].get<double>() == side["speedup_high"].get<double>());
  BOOST_TEST(p["speedup_noisy"] == side["noisy"]);
  auto two = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return std::string(b);
  };
  const std::string cell =
      two(s) + "x [" + two(p["speedup_low"].get<double>()) + "-" + two(p["speedup_high"].get<double>()) + "]";
  // get, list, best: JSON and text.
  const json got = d.f.Ctl({"get", id, "-o", "json"}).Json();
  BOOST_TEST(got["problems"][0]["speedup"].get<double>() == s);
  BOOST_TEST(got["problems"][0]["speedup_low"].get<double>() == p["speedup_low"].get<double>());
  const json listed = d.f.Ctl({"list", "-o", "json"}).Json();
  BOOST_TEST(listed["campaigns"][0]["problems"][0]["speedup"].get<double>() == s);
  const json best = d.f.Ctl({"best", id, "-o", "json"}).Json();
  BOOST_TEST(best["best"][0]["speedup"].get<double>() == s);
  BOOST_TEST(d.f.Ctl({"get", id}).out.find(cell) != std::string::npos, d.f.Ctl({"get", id}).out);
  BOOST_TEST(d.f.Ctl({"best", id}).out.find(cell) != std::string::npos, d.f.Ctl({"best", id}).out);
  const std::string text = d.f.Ctl({"report", id}).out;
  BOOST_TEST(text.find(cell) != std::string::npos, text);
  BOOST_TEST(text.find("speedup " + two(s) + "x (~95% interval") != std::string::npos, text);
  // The HTML report: the headline with its interval.
  const std::string html = d.f.Http("GET", "/v1/campaigns/" + id + "/report.html").second;
  const std::regex data_speedup("class=\"headline-speedup\" data-speedup=\"([^\"]+)\"");
  std::smatch m;
  BOOST_REQUIRE(std::regex_search(html, m, data_speedup));
  BOOST_TEST(json::parse(m[1].str()).get<double>() == s, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(html.find("~95% " + two(p["speedup_low"].get<double>()) + "–" + two(p["speedup_high"].get<double>()) +
                       "x") != std::string::npos);
  // The dashboard's campaign page.
  HeadlessBrowser browser(chromium, d.f.dir);
  const std::string page = browser.Open(d.Url("/ui/?token=" + kToken + "#/campaign/" + id));
  json shown;
  for (int i = 0; i < 200 && !shown.is_object(); ++i) {
    shown = browser.Eval(page,
                         "(() => { const n = document.querySelector('td.speedup[data-speedup]'); "
                         "return n ? {v: Number(n.dataset.speedup), t: n.textContent} : null; })()");
    if (!shown.is_object()) std::this_thread::sleep_for(100ms);
  }
  BOOST_REQUIRE_MESSAGE(shown.is_object(), browser.Dom(page).substr(0, 3000));
  BOOST_TEST(shown["v"].get<double>() == s, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(shown["t"].get<std::string>().find(two(s) + "x [" + two(p["speedup_low"].get<double>()) + "–") == 0u,
             shown.dump());
  // For people to look at: <build>/tests/daemon/, or $ACCELOPT_SCREENS_DIR.
  const char* screens = std::getenv("ACCELOPT_SCREENS_DIR");
  const std::string dir = screens ? screens : std::string(ACCELOPT_BINARY_DIR) + "/tests/daemon";
  fs::create_directories(dir);
  browser.Screenshot(page, dir + "/headline-campaign.png");
  // The page's cards: started, ended, duration, cost; progress complete.
  const json cards = browser.Eval(page,
                                  "(() => ({ended: document.querySelector('#ended .v').textContent, "
                                  "duration: document.querySelector('#duration .v').textContent, "
                                  "progress: document.querySelector('#progress').dataset.done + '/' + "
                                  "document.querySelector('#progress').dataset.total}))()");
  BOOST_TEST(cards["progress"] == "2/2", cards.dump());
  BOOST_TEST(cards["ended"] != "still running", cards.dump());
  BOOST_TEST(cards["duration"].get<std::string>().find(" s") != std::string::npos, cards.dump());

  // The candidate page of the final best: plan, reply, code, verdict,
  // lineage (SVG), diff against its parent.
  const std::string best_id = p["best"]["candidate_id"];
  const std::string cand = browser.Open(d.Url("/ui/?token=" + kToken + "#/campaign/" + id + "/candidate/" + best_id));
  json shown_c;
  for (int i = 0; i < 200 && !shown_c.is_object(); ++i) {
    shown_c = browser.Eval(
        cand,
        "(() => { const q = (s) => document.querySelector(s); if (!q('#verdict')) return null; "
        "return {plan: q('#plan') ? q('#plan').textContent : '', reply: q('#reply') ? q('#reply').textContent : '', "
        "code: q('#code') ? q('#code').textContent : '', svg: !!q('svg#lineage'), "
        "nodes: document.querySelectorAll('#lineage .node').length, "
        "diff: q('#diff') ? q('#diff').textContent : '', verdict: q('#verdict').textContent}; })()");
    if (!shown_c.is_object()) std::this_thread::sleep_for(100ms);
  }
  BOOST_REQUIRE_MESSAGE(shown_c.is_object(), browser.Dom(cand).substr(0, 3000));
  BOOST_TEST(!shown_c["plan"].get<std::string>().empty());
  BOOST_TEST(!shown_c["reply"].get<std::string>().empty());
  BOOST_TEST(shown_c["code"].get<std::string>().find("matmul") != std::string::npos, shown_c.dump());
  BOOST_TEST(shown_c["svg"] == true);
  BOOST_TEST(shown_c["nodes"].get<int>() >= 2, shown_c.dump());  // its parent and itself
  BOOST_TEST(shown_c["diff"].get<std::string>().find("+") != std::string::npos, shown_c.dump());
  BOOST_TEST(shown_c["verdict"].get<std::string>().find("correct") != std::string::npos, shown_c.dump());
  browser.Screenshot(cand, dir + "/candidate.png");

  // Compare two campaigns: per problem % of peak and speedup, and cost.
  auto r2 =
      d.f.Ctl({"submit", WriteJson(d.f, "spec2.json", SmallSpec({"matmul"}, 1, 1, 1, 1)), "--wait", "-o", "json"}, 300);
  BOOST_REQUIRE_MESSAGE(r2.exit_code == 0, r2.err);
  const std::string id2 = r2.Json()["id"];
  const std::string cmp = browser.Open(d.Url("/ui/?token=" + kToken + "#/compare/" + id + "/" + id2));
  json shown_cmp;
  for (int i = 0; i < 200 && !shown_cmp.is_object(); ++i) {
    shown_cmp = browser.Eval(cmp,
                             "(() => { const r = document.querySelector('#compare tr[data-problem=\"matmul\"]'); "
                             "return r ? {cells: [...r.querySelectorAll('td')].map((t) => t.textContent), "
                             "text: document.body.textContent} : null; })()");
    if (!shown_cmp.is_object()) std::this_thread::sleep_for(100ms);
  }
  BOOST_REQUIRE_MESSAGE(shown_cmp.is_object(), browser.Dom(cmp).substr(0, 3000));
  BOOST_TEST(shown_cmp["cells"][3].get<std::string>().find(two(s) + "x") == 0u, shown_cmp.dump());
  BOOST_TEST(shown_cmp["text"].get<std::string>().find("cost: " + id2) != std::string::npos);
  browser.Screenshot(cmp, dir + "/compare.png");

  // The memory page with nothing in it says so.
  const std::string mem = browser.Open(d.Url("/ui/?token=" + kToken + "#/memory"));
  std::string mem_text;
  for (int i = 0; i < 200 && mem_text.find("No memory banks yet") == std::string::npos; ++i) {
    std::this_thread::sleep_for(100ms);
    // Right after Open the document may have no body yet: read "" then.
    mem_text = browser.Eval(mem, "document.body ? document.body.textContent : ''").get<std::string>();
  }
  BOOST_TEST(mem_text.find("No memory banks yet") != std::string::npos, mem_text.substr(0, 2000));
  browser.Screenshot(mem, dir + "/memory-empty.png");
  BOOST_TEST(d.f.StopDaemon() == 0);
}
