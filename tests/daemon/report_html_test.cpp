// The HTML report of a real campaign (fake LLM server, cpu backend),
// rendered by headless Chromium: a screenshot is taken (kept as
// <build>/tests/daemon/report_html.png for people to look at), and the DOM
// after rendering carries the campaign's numbers in its plots: every point
// of each problem's trace, every speedup bar and the geometric mean equal
// the report JSON's.
//
// Needs Debian's chromium (scripts/setup installs it; ACCELOPT_CHROMIUM
// names another binary). Without it the test fails and says so.
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;
namespace fs = std::filesystem;

namespace {

// The part of `dom` from the first match of `start` to the next "</svg>".
std::string SvgAfter(const std::string& dom, const std::string& start) {
  const size_t a = dom.find(start);
  if (a == std::string::npos) return "";
  const size_t b = dom.find("</svg>", a);
  return dom.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

// Every (first, second) capture of `re` in `text`.
std::vector<std::pair<std::string, std::string>> Pairs(const std::string& text, const std::string& re) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::regex r(re);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), r); it != std::sregex_iterator(); ++it)
    out.emplace_back((*it)[1].str(), (*it)[2].str());
  return out;
}

double Number(const std::string& attr) { return json::parse(attr).get<double>(); }

}  // namespace

BOOST_AUTO_TEST_CASE(html_report_renders_the_campaigns_numbers_in_chromium) {
  const std::string chromium = FindChromium();
  DaemonFixture f(StandardScript(5));
  f.StartDaemon();
  const std::string spec = WriteJson(f, "spec.json", SmallSpec({"matmul", "silu"}, 3, 1, 2, 1));
  auto r = f.Ctl({"submit", spec, "--wait", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string id = r.Json()["id"];
  const json report = f.Ctl({"report", id, "-o", "json"}).Json();
  const std::string html_path = f.dir + "/report.html";
  auto w = f.Ctl({"report", id, "--html", html_path});
  BOOST_REQUIRE_MESSAGE(w.exit_code == 0, w.err);
  // The API serves the same page.
  auto [status, body] = f.Http("GET", "/v1/campaigns/" + id + "/report.html");
  BOOST_TEST(status == 200);
  BOOST_TEST(body == ReadAll(html_path));
  // Self-contained: nothing to load.
  BOOST_TEST(body.find("<script") == std::string::npos);
  BOOST_TEST(body.find("http://") == std::string::npos);
  BOOST_TEST(body.find("https://") == std::string::npos);

  const std::string url = "file://" + html_path;
  const std::string png = std::string(ACCELOPT_BINARY_DIR) + "/tests/daemon/report_html.png";
  fs::remove(png);
  RunChromium(chromium, f.dir, "--screenshot=" + png, url);
  const std::string image = ReadAll(png);
  BOOST_REQUIRE_MESSAGE(image.size() > 20000, "screenshot " << png << " is " << image.size() << " bytes");
  BOOST_TEST(image.substr(1, 3) == "PNG");

  const std::string dom = RunChromium(chromium, f.dir, "--dump-dom", url);
  BOOST_REQUIRE_MESSAGE(dom.find("data-campaign=\"" + id + "\"") != std::string::npos, dom.substr(0, 2000));
  int points = 0;
  for (const json& p : report["problems"]) {
    const std::string name = p["name"];
    const std::string trace = SvgAfter(dom, "data-problem=\"" + name + "\" role=\"img\"");
    BOOST_REQUIRE_MESSAGE(!trace.empty(), "no trace plot for " << name);
    // The best-so-far series: one point per iteration with a known % of peak.
    const size_t best_at = trace.find("class=\"series best\"");
    BOOST_REQUIRE(best_at != std::string::npos);
    auto pts = Pairs(trace.substr(best_at), "class=\"point\" data-iteration=\"([^\"]*)\" data-pct=\"([^\"]*)\"");
    std::vector<std::pair<int, double>> want;
    const json& by = p["percent_of_peak_by_iteration"];
    for (size_t i = 0; i < by.size(); ++i)
      if (by[i].is_number()) want.emplace_back(static_cast<int>(i), by[i].get<double>());
    BOOST_REQUIRE_MESSAGE(!want.empty(), name << ": the report has no % of peak (not calibrated?)");
    BOOST_REQUIRE_EQUAL(pts.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      BOOST_TEST(std::stoi(pts[i].first) == want[i].first);
      BOOST_TEST(Number(pts[i].second) == want[i].second);  // exactly: written to read back
      ++points;
    }
    // The baseline line is the report's baseline.
    auto base = Pairs(trace, "class=\"refline (baseline)\" data-pct=\"([^\"]*)\"");
    BOOST_REQUIRE_EQUAL(base.size(), 1u);
    BOOST_TEST(Number(base[0].second) == p["baseline"]["percent_of_peak"].get<double>());
    // Every measurement drawn has its interval around it.
    for (const auto& [lo, hi] : Pairs(trace, "data-low=\"([^\"]*)\" data-high=\"([^\"]*)\""))
      BOOST_TEST(Number(lo) <= Number(hi));
  }
  BOOST_TEST(points >= 2);
  // Speedup bars and the geometric mean.
  const std::string bars = SvgAfter(dom, "class=\"chart speedup\"");
  BOOST_REQUIRE(!bars.empty());
  std::map<std::string, double> drawn;
  for (const auto& [prob, v] : Pairs(bars, "class=\"bar\" data-problem=\"([^\"]*)\" data-speedup=\"([^\"]*)\""))
    drawn[prob] = Number(v);
  for (const json& p : report["problems"])
    if (p["speedup"].is_number()) BOOST_TEST(drawn[p["name"].get<std::string>()] == p["speedup"].get<double>());
  auto geo = Pairs(bars, "class=\"refline (geomean)\" data-speedup=\"([^\"]*)\"");
  BOOST_REQUIRE_EQUAL(geo.size(), 1u);
  BOOST_TEST(Number(geo[0].second) == report["geomean"]["speedup"].get<double>());
  // The matmul kernel that won is shown with its diff against the baseline.
  BOOST_TEST(dom.find("o[j] += a * b[j]") != std::string::npos);
  BOOST_TEST(dom.find("class=\"add\"") != std::string::npos);
  BOOST_TEST(f.StopDaemon() == 0);
}
