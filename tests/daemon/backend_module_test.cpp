// A fifth backend added as one module (daemon/backend_module.hpp), through
// the table alone: acceloptd-module (module_daemon.cpp) registers "count"
// and is otherwise the real daemon. Its config section is checked by the
// module's keys and parse, the daemon starts it, and POST /v1/baseline
// evaluates a suite's problem on it, by the problem's backend name, through
// the dispatcher; its hardware facts reach the campaigns, its calibration is
// shown, measured again and recorded, through the modules' hooks.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/subprocess.hpp"
#include "daemon_fixture.hpp"

namespace fs = std::filesystem;
using namespace accelopt;
using namespace accelopt::testing;

namespace {

// A one-problem suite on the "count" backend: the test silu problem with
// backend "count" (its files by the default row of workflows/backend_traits).
std::string CountSuite(const std::string& dir) {
  const fs::path suite = fs::path(dir) / "count-suite";
  const fs::path problem = suite / "silu";
  fs::create_directories(problem);
  const fs::path from = fs::path(ACCELOPT_SOURCE_DIR) / "tests/evaluators/problems/silu";
  auto spec = ParseJson(ReadAll((from / "problem.json").string()));
  BOOST_REQUIRE(spec.ok());
  (*spec)["backend"] = "count";
  std::ofstream(problem / "problem.json") << spec->dump(1);
  fs::copy_file(from / "reference.cpp", problem / "reference.cpp");
  fs::copy_file(from / "baseline.cpp", problem / "baseline.cpp");
  return suite.string();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(backend_module)

BOOST_AUTO_TEST_CASE(a_backend_registered_as_one_module_is_configured_started_and_evaluates) {
  DaemonFixture f(StandardScript(5), {{"evaluators", {{"count", {{"slots", 2}, {"label", "tally"}}}}}});
  f.daemon_path = ACCELOPTD_MODULE_PATH;
  const std::string suite = CountSuite(f.dir);
  // The suite is added to the fixture's config (its folder exists only now).
  auto config = ParseJson(ReadAll(f.config_path));
  BOOST_REQUIRE(config.ok());
  (*config)["suites"]["count"] = suite;
  std::ofstream(f.config_path) << config->dump(1);

  // The module's section rules hold at the config check: an unknown key is
  // named, a missing required one too.
  for (const auto& [bad, want] : std::vector<std::pair<json, std::string>>{
           {{{"label", "x"}, {"bogus", 1}}, "evaluators.count: unknown key `bogus` (known: label, slots)"},
           {{{"slots", 1}}, "evaluators.count.label: required"},
           {json::object(), ""}}) {
    json c = *config;
    c["evaluators"]["count"] = bad;
    std::string expect = want;
    if (expect.empty()) {
      // A module without a traits row or a prompt set is refused by name.
      c["evaluators"] = {{"bare", {{"label", "x"}}}};
      expect = "evaluators.bare: backend 'bare' has no row in workflows/backend_traits.cpp";
    }
    const std::string path = f.dir + "/bad.json";
    std::ofstream(path) << c.dump(1);
    ProcessSpec spec;
    spec.argv = {ACCELOPTD_MODULE_PATH, "--check-config", path};
    spec.timeout = std::chrono::seconds(30);
    auto r = Env::Default()->RunProcess(spec);
    BOOST_REQUIRE(r.ok());
    BOOST_TEST(r->exit_code == 1, r->Describe());
    BOOST_TEST(r->stderr_data.find(expect) != std::string::npos, r->stderr_data);
  }

  f.StartDaemon();
  auto [code, body] = f.Http("POST", "/v1/baseline", R"({"suite": "count"})");
  BOOST_TEST(code == 200, body);
  auto j = ParseJson(body);
  BOOST_REQUIRE(j.ok());
  BOOST_REQUIRE(j->at("problems").size() == 1u);
  const json& row = j->at("problems")[0];
  BOOST_TEST(row.value("problem", "") == "silu");
  BOOST_TEST(row.value("status", "") == "ok", row.dump());
  size_t lines = 0;
  for (char c : ReadAll(suite + "/silu/baseline.cpp")) lines += c == '\n';
  BOOST_TEST(row.value("reason", "") ==
                 "the throw-away test backend 'tally' counted " + std::to_string(lines) + " lines; no measurement",
             row.dump());
  BOOST_TEST(!row.contains("latency_us"));
  // Its slots are the dispatcher's, by name.
  auto [mcode, metrics] = f.Http("GET", "/metrics");
  BOOST_TEST(mcode == 200);
  BOOST_TEST(metrics.find("accelopt_evaluations_queued{backend=\"count\"} 0") != std::string::npos, metrics);

  // Its hardware facts (the facts hook) are every campaign's.
  auto campaign_facts = [&f](int seed) {
    json spec = SmallSpec({"silu"}, 1, 1, 1, 1);
    spec["suite"] = "suites/count";
    spec["seed"] = seed;
    auto [cs, created] = f.Http("POST", "/v1/campaigns", json{{"spec", spec}}.dump());
    BOOST_REQUIRE_MESSAGE(cs == 201, created);
    auto cj = ParseJson(created);
    BOOST_REQUIRE(cj.ok());
    const std::string id = cj->value("id", "");
    auto [es, events] = f.Http("GET", "/v1/campaigns/" + id + "/events");
    BOOST_REQUIRE_MESSAGE(es == 200, events);
    auto ej = ParseJson(events);
    BOOST_REQUIRE(ej.ok());
    for (const json& e : ej->at("events"))
      if (e.value("type", "") == "CampaignStarted") return e["data"].value("hardware", json());
    return json();
  };
  BOOST_TEST(campaign_facts(1) == (json{{"count", {{"label", "tally"}, {"measurements", 1}}}}));
  // Its calibration (the calibrate hook): shown, measured again, recorded,
  // and the campaigns' facts follow it.
  auto [c1, shown] = f.Http("POST", "/v1/calibrate", R"({"backend": "count"})");
  BOOST_TEST(c1 == 200, shown);
  BOOST_TEST(shown.find("\"measurements\":1") != std::string::npos, shown);
  auto [c2, forced] = f.Http("POST", "/v1/calibrate", R"({"backend": "count", "force": true})");
  BOOST_TEST(c2 == 200, forced);
  BOOST_TEST(forced.find("\"remeasured\":true") != std::string::npos, forced);
  BOOST_TEST(forced.find("\"measurements\":2") != std::string::npos, forced);
  BOOST_TEST(campaign_facts(2) == (json{{"count", {{"label", "tally"}, {"measurements", 2}}}}));
  auto [c3, none] = f.Http("POST", "/v1/calibrate", R"({"backend": "cpu"})");
  BOOST_TEST(c3 == 404, none);
  BOOST_TEST(none.find("no calibratable backend 'cpu'") != std::string::npos, none);
  BOOST_TEST(f.StopDaemon() == 0);
  // The start's calibration and the forced one, in the system stream by name.
  ProcessSpec dump;
  dump.argv = {ACCELOPT_STORE_PATH, "dump", f.dir + "/state/events"};
  dump.max_output_bytes = 64 << 20;
  auto d = Env::Default()->RunProcess(dump);
  BOOST_REQUIRE(d.ok());
  int recorded = 0;
  std::istringstream in(d->stdout_data);
  for (std::string line; std::getline(in, line);) {
    auto e = json::parse(line, nullptr, false);
    if (!e.is_discarded() && e.value("type", "") == "CalibrationRecorded") {
      ++recorded;
      BOOST_TEST(e["data"].value("backend", "") == "count", line);
    }
  }
  BOOST_TEST(recorded == 2);
}

BOOST_AUTO_TEST_SUITE_END()
