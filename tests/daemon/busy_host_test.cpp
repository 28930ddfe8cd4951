// acceloptd on a busy host (issue 27): a start calibration refused as busy
// no longer stops the daemon. It serves the API, says in `health` and in a
// running campaign's `get` that cpu evaluations wait for a calibration
// (since when, attempts, the next attempt, the fix), retries, and runs the
// evaluations once a calibration is accepted (here: `calibrate --force
// --force-busy`, deterministic; a quiet retry is the same path). A restart
// on the busy host then uses the saved calibration of this hardware
// fingerprint and does not wait. CPU hogs on every core make the host busy
// (slow label: ~1 minute).
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "base/subprocess.hpp"
#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;

namespace {

const std::string kToken = "busy-host-token-0123456789abcdef";

std::vector<Child> StartHogs(const DaemonFixture& f) {
  std::vector<Child> hogs;
  const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  for (long i = 0; i < cores + 1; ++i)
    hogs.emplace_back(std::vector<std::string>{"/bin/sh", "-c", "while :; do :; done"}, f.dir + "/hog.out");
  return hogs;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_busy_host_serves_and_cpu_evaluations_wait_for_a_calibration) {
  // A fresh cache dir: no saved calibration to fall back on.
  char tmpl[] = "/tmp/accelopt-busy-cache-XXXXXX";
  const std::string cache = mkdtemp(tmpl);
  DaemonFixture f(StandardScript(5), {{"evaluators",
                                       {{"cpu",
                                         {{"slots", 1},
                                          {"cache_dir", cache},
                                          {"calibration_attempts", 1},
                                          {"calibration_retry_wait_s", 0},
                                          {"calibration_retry_after_s", 1}}}}}});
  // The dashboard over TCP, with a token.
  const int port = FreeTcpPort();
  {
    json cfg = json::parse(ReadAll(f.config_path));
    cfg["listen"]["tcp"] = "127.0.0.1:" + std::to_string(port);
    cfg["listen"]["tcp_token_env"] = "ACCELOPT_BUSY_TOKEN";
    std::ofstream(f.config_path) << cfg.dump();
  }
  std::vector<Child> hogs = StartHogs(f);
  f.StartDaemon({"ACCELOPT_BUSY_TOKEN=" + kToken});  // returns once the daemon answers: it did not exit

  auto health = f.Ctl({"health", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(health.exit_code == 0, health.err << health.out);
  json c = health.Json().value("calibration", json());
  BOOST_REQUIRE_MESSAGE(c.is_object(), health.out);
  BOOST_TEST(c["backend"] == "cpu");
  BOOST_TEST((c["state"] == "waiting" || c["state"] == "measuring"), c.dump());
  BOOST_TEST(c["since_us"].get<int64_t>() > 0);
  BOOST_TEST(c.value("reason", "").find("busy") != std::string::npos, c.dump());
  BOOST_TEST(c.value("fix", "").find("--force-busy") != std::string::npos, c.dump());
  BOOST_TEST(c.value("fix", "").find("evaluators.cpu.calibration_force_busy") != std::string::npos, c.dump());
  auto health_text = f.Ctl({"health"});
  BOOST_TEST(health_text.out.find("cpu calibration: ") != std::string::npos, health_text.out);

  // A campaign is taken; its evaluations wait, and `get` says why.
  const std::string spec = WriteJson(f, "spec.json", SmallSpec({"silu"}, 1, 1, 1, 1));
  auto s = f.Ctl({"submit", spec, "-o", "json"});
  BOOST_REQUIRE_MESSAGE(s.exit_code == 0, s.err);
  const std::string id = s.Json()["id"];
  std::string got;
  for (int i = 0; i < 200 && got.find("waiting for a calibration") == std::string::npos; ++i) {
    got = f.Ctl({"get", id}).out;
    if (got.find("waiting for a calibration") == std::string::npos)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  BOOST_TEST(got.find("cpu evaluations waiting for a calibration since") != std::string::npos, got);
  // It retries (attempts grow) while the host stays busy.
  int attempts = 0;
  for (int i = 0; i < 600 && attempts < 2; ++i) {
    attempts = f.Ctl({"health", "-o", "json"}).Json().value("calibration", json::object()).value("attempts", 0);
    if (attempts < 2) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  BOOST_TEST(attempts >= 2);
  for (const auto& e : CtlEvents(f, id)) BOOST_TEST(e["type"] != "EvaluationCompleted");
  // The dashboard's campaign page says what the campaign waits for.
  {
    HeadlessBrowser browser(FindChromium(), f.dir);
    const std::string page =
        browser.Open("http://127.0.0.1:" + std::to_string(port) + "/ui/?token=" + kToken + "#/campaign/" + id);
    std::string card;
    for (int i = 0; i < 600 && card.empty(); ++i) {
      card = browser
                 .Eval(page,
                       "(() => { const n = document.querySelector('#calibration'); return n ? n.textContent : ''; })()")
                 .get<std::string>();
      if (card.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    BOOST_TEST(card.find("cpu evaluations wait for a calibration since") != std::string::npos, card);
    BOOST_TEST(card.find("--force-busy") != std::string::npos, card);
    const char* screens = std::getenv("ACCELOPT_SCREENS_DIR");
    const std::string dir = screens ? screens : std::string(ACCELOPT_BINARY_DIR) + "/tests/daemon";
    browser.Screenshot(page, dir + "/dashboard-waiting-calibration.png");
  }

  // A calibration accepted (forced, so a still-busy host does not matter):
  // the campaign's evaluations run and it completes.
  for (auto& h : hogs) h.Signal(SIGKILL);
  for (auto& h : hogs) h.Wait(std::chrono::seconds(10));
  hogs.clear();
  auto forced = f.Ctl({"calibrate", "--force", "--force-busy"}, 240);
  BOOST_TEST(forced.exit_code == 0, forced.err);
  auto wait = f.Ctl({"wait", id}, 240);
  BOOST_TEST(wait.exit_code == 0, wait.err << wait.out);
  const json healthy = f.Ctl({"health", "-o", "json"}).Json();
  BOOST_TEST(!healthy.contains("calibration"));
  // The judge's reference cache: its size (checked at evaluations) and limit.
  const json rc =
      healthy.value("backends", json::object()).value("cpu", json::object()).value("reference_cache", json());
  BOOST_REQUIRE_MESSAGE(rc.is_object(), healthy.dump());
  BOOST_TEST(rc.value("limit_bytes", 0.0) == 20.0 * (1 << 30));
  BOOST_TEST(rc["bytes"].is_number(), rc.dump());
  BOOST_TEST(rc.value("bytes", 0.0) > 0);
  BOOST_TEST(rc.value("folder", "") == cache + "/harness");
  const std::string text = f.Ctl({"health"}).out;
  BOOST_TEST(text.find("cpu reference cache: ") != std::string::npos, text);
  BOOST_TEST(text.find(" of 20.00 GiB") != std::string::npos, text);
  BOOST_TEST(f.StopDaemon() == 0);

  // Busy again: the saved calibration of this fingerprint is used, no wait.
  hogs = StartHogs(f);
  f.StartDaemon({"ACCELOPT_BUSY_TOKEN=" + kToken});
  BOOST_TEST(!f.Ctl({"health", "-o", "json"}).Json().contains("calibration"));
  for (auto& h : hogs) h.Signal(SIGKILL);
  BOOST_TEST(f.StopDaemon() == 0);
  (void)system(("rm -rf '" + cache + "'").c_str());
}

// acceloptd --force-busy exists and means the config key.
BOOST_AUTO_TEST_CASE(force_busy_is_an_acceloptd_flag) {
  ProcessSpec spec;
  spec.argv = {AcceloptdPath(), "--help"};
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->exit_code == 0);
  BOOST_TEST(r->stdout_data.find("--force-busy") != std::string::npos, r->stdout_data);
  BOOST_TEST(r->stdout_data.find("evaluators.cpu.calibration_force_busy") != std::string::npos, r->stdout_data);
}
