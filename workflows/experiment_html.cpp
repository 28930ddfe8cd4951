#include "workflows/experiment_html.hpp"

#include <cstdio>
#include <map>
#include <tuple>
#include <vector>

#include "base/html.hpp"
#include "workflows/report_html.hpp"
#include "workflows/report_svg.hpp"

namespace accelopt::workflows {
// Named (not anonymous): the unity build puts this file beside others with
// helpers of the same names.
namespace experiment_html_impl {

std::string E(const std::string& s) { return HtmlEscape(s); }
std::string N(double v) { return HtmlNumber(v); }
std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string SignedPct(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v);
  return buf;
}
std::string Str(const json& j, const char* key) { return j.value(key, std::string()); }
double Num(const json& j, const char* key) { return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0; }

std::string MetricName(const std::string& m) { return m == "speedup" ? "speedup" : "% of peak"; }

std::string Header(const json& r) {
  std::string s = "<h1>accelopt experiment " + E(Str(r, "experiment")) + "</h1><div class=\"meta\">";
  s += "<span>" + std::to_string(r.value("campaigns", 0)) + " campaigns</span>";
  s += "<span>reference arm: " + E(Str(r, "against")) + "</span>";
  if (!r.value("learn", json::array()).empty()) {
    s += "<span>" + std::to_string(r["learn"].size()) + " learn campaigns (not compared)</span>";
  }
  const int running = r.value("still_running", 0);
  if (running > 0)
    s += "<span class=\"bad\">" + std::to_string(running) + " still running: the figures will change</span>";
  return s + "</div>";
}

std::string Verdicts(const json& r) {
  std::string s =
      "<h2>Verdicts</h2><p class=\"meta\">Paired by (problem, seed) against the reference arm; "
      "~95% intervals over seeds of the geometric-mean ratio.</p><ul class=\"verdicts\">";
  for (const json& c : r.value("comparisons", json::array())) {
    s += "<li data-arm=\"" + E(Str(c, "arm_b")) + "\" data-metric=\"" + E(Str(c, "metric")) + "\" data-resolved=\"" +
         (c.value("excludes_zero", false) ? "true" : "false") + "\">" + E(Str(c, "verdict")) + "</li>";
  }
  return s + "</ul>";
}

std::string ArmsTable(const json& r) {
  std::string s =
      "<h2>Arms</h2><table class=\"arms\"><tr><th>arm</th><th>seeds</th><th>problems</th>"
      "<th>with a result</th><th>geomean speedup</th><th>geomean % of peak</th><th>cost</th>"
      "<th>cost per seed</th></tr>";
  for (const json& a : r.value("arms", json::array())) {
    const int runs = a.value("runs", 0), without = a.value("runs_without_result", 0);
    const double sp = Num(a, "geomean_speedup"), pct = Num(a, "geomean_percent_of_peak");
    s += "<tr data-arm=\"" + E(Str(a, "arm")) + "\"><td>" + E(Str(a, "arm")) + "</td><td class=\"n\">" +
         std::to_string(a.value("seeds", 0)) + "</td><td class=\"n\">" + std::to_string(a.value("problems", 0)) +
         "</td><td class=\"n\">" + std::to_string(runs - without) + "/" + std::to_string(runs) +
         "</td><td class=\"n\">" + (sp > 0 ? Fixed(sp, 2) + "x" : "-") + "</td><td class=\"n\">" +
         (pct > 0 ? Fixed(pct, 2) + "%" : "-") + "</td><td class=\"n\">$" + Fixed(Num(a, "cost_usd"), 4) +
         "</td><td class=\"n\">$" + Fixed(Num(a, "cost_per_seed_usd"), 4) + "</td></tr>";
  }
  return s + "</table>";
}

svg::Point IntervalPoint(const json& c, double x, const std::string& problem) {
  svg::Point p;
  p.x = x;
  p.y = Num(c, "percent");
  const bool resolved = c.value("resolved", false);
  if (resolved) {
    p.low = Num(c, "percent_lo");
    p.high = Num(c, "percent_hi");
  }
  p.title = problem + ": " + SignedPct(p.y) +
            (resolved ? " [" + SignedPct(p.low) + ", " + SignedPct(p.high) + "]" : " (no interval)") + " over " +
            std::to_string(c.value("seeds", 0)) + " seeds";
  p.data = {{"problem", problem}, {"percent", N(p.y)}, {"outcome", c.value("outcome", std::string())}};
  if (resolved) {
    p.data.push_back({"low", N(p.low)});
    p.data.push_back({"high", N(p.high)});
  }
  return p;
}

std::string ComparisonSection(const json& c) {
  const std::string title = Str(c, "arm_b") + " vs " + Str(c, "arm_a") + ", " + MetricName(Str(c, "metric"));
  std::string s = "<h3>" + E(title) + "</h3><div class=\"charts\">";
  svg::LineChart chart;
  chart.title = "paired difference per problem (last: all problems)";
  chart.x_label = "problem (see the table)";
  chart.y_label = "difference, %";
  chart.css_class = "interval";
  chart.data = {{"arm", Str(c, "arm_b")}, {"metric", Str(c, "metric")}};
  svg::Series per{"per problem", "measurement", false, "circle", {}};
  const json& problems = c.value("per_problem", json::array());
  for (size_t i = 0; i < problems.size(); ++i) {
    per.points.push_back(IntervalPoint(problems[i], static_cast<double>(i + 1), Str(problems[i], "problem")));
  }
  svg::Series all{"all problems", "best", false, "diamond", {}};
  json overall = c;
  overall["outcome"] = c.value("excludes_zero", false) ? (Num(c, "percent_lo") > 0 ? "helped" : "hurt") : "unresolved";
  all.points.push_back(IntervalPoint(overall, static_cast<double>(problems.size() + 1), "*"));
  chart.series = {per, all};
  chart.lines.push_back({0, "no difference", "parity", {}});
  s += svg::Render(chart) + "</div>";
  s += "<table class=\"per-problem\"><tr><th>no.</th><th>problem</th><th>outcome</th><th>difference</th>"
       "<th>~95% interval</th><th>seeds</th></tr>";
  for (size_t i = 0; i < problems.size(); ++i) {
    const json& p = problems[i];
    const std::string outcome = Str(p, "outcome");
    const bool resolved = p.value("resolved", false);
    s += "<tr data-problem=\"" + E(Str(p, "problem")) + "\" data-outcome=\"" + E(outcome) + "\"><td class=\"n\">" +
         std::to_string(i + 1) + "</td><td>" + E(Str(p, "problem")) + "</td><td class=\"" +
         (outcome == "helped" ? "ok"
          : outcome == "hurt" ? "bad"
                              : "muted") +
         "\">" + E(outcome) + (outcome == "hurt" ? " (negative transfer)" : "") + "</td><td class=\"n\">" +
         SignedPct(Num(p, "percent")) + "</td><td class=\"n\">" +
         (resolved ? "[" + SignedPct(Num(p, "percent_lo")) + ", " + SignedPct(Num(p, "percent_hi")) + "]" : "-") +
         "</td><td class=\"n\">" + std::to_string(p.value("seeds", 0)) + "</td></tr>";
  }
  return s + "</table>";
}

// Per problem: one line per seed from the reference arm (x 0) to the other
// (x 1), on the speedup.
std::string PairedPlots(const json& c) {
  std::map<std::string, std::vector<const json*>> by_problem;
  std::vector<std::string> order;
  const json pairs = c.value("pairs", json::array());  // the pointers below point into it
  for (const json& p : pairs) {
    const std::string problem = Str(p, "problem");
    if (!by_problem.count(problem)) order.push_back(problem);
    by_problem[problem].push_back(&p);
  }
  std::string s = "<h3>" + E(Str(c, "arm_b") + " vs " + Str(c, "arm_a")) +
                  ": speedup per seed (left: " + E(Str(c, "arm_a")) + ", right: " + E(Str(c, "arm_b")) +
                  ")</h3><div class=\"charts\">";
  for (const std::string& problem : order) {
    svg::LineChart chart;
    chart.title = problem;
    chart.x_label = "0: " + Str(c, "arm_a") + "   1: " + Str(c, "arm_b");
    chart.y_label = "speedup (x)";
    chart.width = 320;
    chart.height = 260;
    chart.css_class = "paired";
    chart.data = {{"problem", problem}, {"arm", Str(c, "arm_b")}};
    int k = 0;
    for (const json* p : by_problem[problem]) {
      const std::string seed = std::to_string(p->value("seed", int64_t{0}));
      svg::Series se{"seed " + seed, "role" + std::to_string(k++ % 5), true, "circle", {}};
      for (const auto& [x, arm, key] : {std::tuple<double, std::string, const char*>{0, Str(c, "arm_a"), "a"},
                                        std::tuple<double, std::string, const char*>{1, Str(c, "arm_b"), "b"}}) {
        svg::Point pt;
        pt.x = x;
        pt.y = Num(*p, key);
        pt.title = arm + ", seed " + seed + ": " + Fixed(pt.y, 3) + "x";
        pt.data = {{"problem", problem}, {"seed", seed}, {"arm", arm}, {"value", N(pt.y)}};
        se.points.push_back(pt);
      }
      chart.series.push_back(se);
    }
    s += svg::Render(chart);
  }
  return s + "</div>";
}

// True when every curve is of a campaign whose calls were all priced at $0
// ("zero_price": a local model) and its points carry the tokens spent: the
// chart's x axis is then tokens, not a flat $0.
bool TokensAxis(const json& curves) {
  if (curves.empty()) return false;
  for (const json& cv : curves) {
    if (!cv.value("zero_price", false)) return false;
    for (const json& p : cv.value("points", json::array())) {
      if (!p.is_array() || p.size() < 3 || !p[2].is_number()) return false;
    }
  }
  return true;
}

std::string CostCurves(const json& r) {
  const json& curves = r.value("cost_curves", json::array());
  const bool tokens = TokensAxis(curves);
  std::string s = "<h2>Cost efficiency</h2><p class=\"meta\">Per campaign, after each LLM call or evaluation: the " +
                  std::string(tokens ? "tokens spent so far (input + output, as the server reported them; every "
                                       "call was priced at $0, cost_source zero_price, so tokens measure the spend)"
                                     : "dollars spent so far (the providers' reported usage, priced)") +
                  " and the geometric mean over problems of the best % of peak found so far.</p>";
  std::map<std::string, int> arm_index;
  for (const json& a : r.value("arms", json::array()))
    arm_index.emplace(Str(a, "arm"), static_cast<int>(arm_index.size()));
  svg::LineChart chart;
  chart.title = tokens ? "best % of peak against tokens spent" : "best % of peak against dollars spent";
  chart.x_label = tokens ? "tokens spent (input + output; every call $0: zero_price)" : "spent, USD";
  chart.y_label = "best % of peak (geomean)";
  chart.width = 900;
  chart.css_class = "cost";
  size_t points = 0;
  for (const json& cv : curves) {
    const std::string arm = Str(cv, "arm"), seed = std::to_string(cv.value("seed", int64_t{0}));
    const int k = arm_index.count(arm) ? arm_index[arm] : static_cast<int>(arm_index.size());
    svg::Series se{arm + " seed " + seed, "role" + std::to_string(k % 5), true, "circle", {}};
    for (const json& p : cv.value("points", json::array())) {
      if (!p.is_array() || p.size() < 2) continue;
      svg::Point pt;
      pt.x = tokens ? p[2].get<double>() : p[0].get<double>();
      pt.y = p[1].get<double>();
      pt.title = arm + " seed " + seed + ": " + Fixed(pt.y, 2) + "% at " +
                 (tokens ? Fixed(pt.x, 0) + " tokens" : "$" + Fixed(pt.x, 4));
      pt.data = {{"arm", arm}, {"seed", seed}, {"cost", N(p[0].get<double>())}, {"pct", N(pt.y)}};
      if (tokens) pt.data.push_back({"tokens", N(pt.x)});
      se.points.push_back(pt);
    }
    points += se.points.size();
    if (!se.points.empty()) chart.series.push_back(se);
  }
  if (points == 0) return s + "<p class=\"muted\">No campaign has a % of peak yet.</p>";
  return s + "<div class=\"charts\">" + svg::Render(chart) + "</div>";
}

std::string LearnTable(const json& r) {
  const json& learn = r.value("learn", json::array());
  if (learn.empty()) return "";
  std::string s =
      "<h2>Learning phase</h2><p class=\"meta\">The campaigns that made each seed's memory "
      "(not compared).</p><table class=\"learn\"><tr><th>seed</th><th>campaign</th><th>state</th></tr>";
  for (const json& l : learn) {
    s += "<tr><td class=\"n\">" + std::to_string(l.value("seed", int64_t{0})) + "</td><td>" + E(Str(l, "campaign")) +
         "</td><td>" + E(Str(l, "state")) + "</td></tr>";
  }
  return s + "</table>";
}

}  // namespace experiment_html_impl

std::string RenderExperimentHtml(const json& r) {
  using namespace experiment_html_impl;
  const std::string id = Str(r, "experiment");
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>accelopt experiment " +
      E(id) + "</title><style>" + ReportStyleSheet() +
      "</style></head><body><div class=\"report experiment\" data-experiment=\"" + E(id) + "\">";
  s += Header(r) + Verdicts(r) + ArmsTable(r);
  s += "<h2>Comparisons</h2>";
  for (const json& c : r.value("comparisons", json::array())) {
    s += ComparisonSection(c);
    if (Str(c, "metric") == "speedup") s += PairedPlots(c);
  }
  s += CostCurves(r) + LearnTable(r);
  s += "<p class=\"meta\">Generated by accelopt from the experiment's campaigns and their "
       "events.</p></div></body></html>\n";
  return s;
}

}  // namespace accelopt::workflows
