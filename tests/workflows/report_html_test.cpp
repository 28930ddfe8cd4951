// The detailed report and its HTML page, on a simulated campaign: the
// detail agrees with the report (trace == percent_of_peak_by_iteration, the
// best path ends at the best kernel), and untrusted text (plan titles,
// kernel sources) is escaped, never markup.
#include <boost/test/unit_test.hpp>

#include "base/html.hpp"
#include "base/line_diff.hpp"
#include "workflows/report_detail.hpp"
#include "workflows/report_html.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

CampaignState RunDefault() {
  World w = MakeWorld();
  Sim sim(DefaultSpec(w), MakeScript(w), 1);
  BOOST_REQUIRE(sim.Start("c1", w.sources, w.hardware).ok());
  BOOST_REQUIRE(sim.RunToEnd().ok());
  return sim.state();
}

std::map<std::string, std::string> Sources(const json& r, const CampaignState& st, const std::string& best_text) {
  std::map<std::string, std::string> m;
  for (const auto& sha : ReportHtmlSources(r)) m[sha] = best_text;
  for (const auto& ps : st.problems) m[ps.info.baseline_sha256] = "void baseline() {}\n";
  return m;
}

BOOST_AUTO_TEST_SUITE(report_html)

BOOST_AUTO_TEST_CASE(detail_agrees_with_the_report) {
  const CampaignState st = RunDefault();
  const json r = BuildDetailedReport(st);
  BOOST_TEST(r["ended_at_us"].is_number());
  BOOST_TEST(r["duration_s"].get<double>() >= 0);
  BOOST_REQUIRE(r["problems"].size() == st.problems.size());
  for (const json& p : r["problems"]) {
    const json& by = p["percent_of_peak_by_iteration"];
    BOOST_REQUIRE_EQUAL(p["trace"].size(), by.size());
    for (size_t i = 0; i < by.size(); ++i) BOOST_TEST(p["trace"][i]["best_percent_of_peak"] == by[i]);
    BOOST_TEST(!p["lineage"].empty());
    // The path ends at the best kernel; each step's parent is the one before.
    const json& path = p["best_path"];
    if (p["best"]["candidate_id"] != "baseline") {
      BOOST_REQUIRE(!path.empty());
      BOOST_TEST(path.back() == p["best"]["candidate_id"]);
    }
    // Every measurement interval holds its value.
    for (const json& t : p["trace"])
      for (const json& m : t["measurements"])
        if (m["percent_of_peak"].is_number()) {
          BOOST_TEST(m["percent_low"].get<double>() <= m["percent_of_peak"].get<double>());
          BOOST_TEST(m["percent_high"].get<double>() >= m["percent_of_peak"].get<double>());
        }
  }
  BOOST_TEST(r["llm_calls"].size() == r["usage"]["total"]["calls"].get<size_t>());
}

BOOST_AUTO_TEST_CASE(untrusted_text_is_escaped) {
  CampaignState st = RunDefault();
  const std::string evil = "</script><script>alert(1)</script><img src=x onerror=alert(2)>\"'&";
  for (auto& ps : st.problems)
    for (auto& it : ps.iterations)
      for (auto& plan : it.plans) plan.title = evil;
  st.problems[0].info.name = evil;
  const json r = BuildDetailedReport(st);
  const std::string html = RenderReportHtml(r, Sources(r, st, "int main() { return 0; } // " + evil + "\n"));
  BOOST_TEST(html.find("<img") == std::string::npos);
  BOOST_TEST(html.find("<script") == std::string::npos);
  BOOST_TEST(html.find("</script") == std::string::npos);
  BOOST_TEST(html.find("&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;") != std::string::npos);
  // The title does appear (escaped) in the lineage, the source in the page.
  BOOST_TEST(html.find("int main() { return 0; }") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(html_escape_and_numbers) {
  BOOST_TEST(HtmlEscape("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&#39;");
  BOOST_TEST(HtmlEscape(std::string("x\x01y\xff"
                                    "z",
                                    5)) == "xy\xEF\xBF\xBDz");
  BOOST_TEST(HtmlEscape("µs") == "µs");
  for (double v : {0.1, 12.5, 1e-7, 123456.789, 1.0 / 3}) BOOST_TEST(json::parse(HtmlNumber(v)).get<double>() == v);
}

BOOST_AUTO_TEST_CASE(line_diff_keeps_common_lines) {
  const auto d = LineDiff("a\nb\nc\n", "a\nx\nc\nd\n");
  std::string ops;
  for (const auto& l : d) ops += std::string(1, l.op) + l.text + ";";
  BOOST_TEST(ops == " a;-b;+x; c;+d;");
  BOOST_TEST(LineDiff("", "").empty());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace accelopt::workflows::testing
