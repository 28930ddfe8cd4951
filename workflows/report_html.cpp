#include "workflows/report_html.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "base/html.hpp"
#include "base/line_diff.hpp"
#include "workflows/report.hpp"
#include "workflows/report_svg.hpp"

namespace accelopt::workflows {

namespace {

using svg::kNone;

std::string E(const std::string& s) { return HtmlEscape(s); }
std::string E(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? HtmlEscape(j[key].get<std::string>()) : std::string();
}
bool Num(const json& j, const char* key) { return j.contains(key) && j[key].is_number(); }
double D(const json& j, const char* key, double def = kNone) { return Num(j, key) ? j[key].get<double>() : def; }
std::string N(double v) { return HtmlNumber(v); }  // for data- attributes: reads back exactly
// A count or other whole number for people ("26", not "26.0").
std::string I(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string FixedDigits(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string Micros(double us) {
  if (!std::isfinite(us)) return "-";
  if (us >= 1e6) return FixedDigits(us / 1e6, 3) + " s";
  if (us >= 1e3) return FixedDigits(us / 1e3, 3) + " ms";
  return FixedDigits(us, 2) + " µs";
}
std::string Time(int64_t us) {
  if (us <= 0) return "-";
  const time_t t = static_cast<time_t>(us / 1000000);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}
std::string Duration(double s) {
  if (!std::isfinite(s) || s < 0) return "-";
  char buf[64];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%dh %02dm %02ds", int(s / 3600), int(s / 60) % 60, int(s) % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%dm %02ds", int(s / 60), int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}
// Ids are long ("<campaign>/p0/it2/cand/b0/n1/k0"): show the part after the campaign.
std::string ShortId(const std::string& id, const std::string& campaign) {
  if (!campaign.empty() && id.rfind(campaign + "/", 0) == 0) return id.substr(campaign.size() + 1);
  return id;
}

const char kStyle[] = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px auto;max-width:1320px;color:#1d2430;background:#fff;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d8dee8;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.meta{color:#4a5568;font-size:13px}.meta span{margin-right:18px}
table{border-collapse:collapse;font-size:13px;margin:6px 0 10px}
th,td{border:1px solid #d8dee8;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f2f5f9;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:12px}
svg.chart{background:#fbfcfe;border:1px solid #e2e8f0;border-radius:4px}
svg .chart-title{font-size:13px;font-weight:600;fill:#1d2430}
svg .tick{font-size:10px;fill:#4a5568}svg .axis-label{font-size:11px;fill:#4a5568}
svg .grid{stroke:#e8edf3;stroke-width:1}svg .axis{stroke:#8795a8;stroke-width:1}
svg .series polyline{stroke-width:2}
svg .series.best polyline{stroke:#2563eb}svg .series.best .marker{fill:#2563eb}
svg .series.measurement .marker{fill:#94a3b8;fill-opacity:.75}svg .whisker{stroke:#94a3b8;stroke-width:1;fill:none}
svg .series.remeasured .marker{fill:#f59e0b;stroke:#92400e;stroke-width:1}
svg .series.role0 polyline{stroke:#2563eb}svg .series.role0 .marker{fill:#2563eb}
svg .series.role1 polyline{stroke:#16a34a}svg .series.role1 .marker{fill:#16a34a}
svg .series.role2 polyline{stroke:#dc2626}svg .series.role2 .marker{fill:#dc2626}
svg .series.role3 polyline{stroke:#9333ea}svg .series.role3 .marker{fill:#9333ea}
svg .series.role4 polyline{stroke:#0891b2}svg .series.role4 .marker{fill:#0891b2}
svg .legend text{font-size:11px;fill:#1d2430}
svg .refline line{stroke-width:1.5;stroke-dasharray:6 4}svg .refline text{font-size:10px}
svg .refline.baseline line{stroke:#6b7280}svg .refline.baseline text{fill:#374151}
svg .refline.roofline line{stroke:#dc2626}svg .refline.roofline text{fill:#b91c1c}
svg .refline.geomean line{stroke:#16a34a}svg .refline.geomean text{fill:#15803d}
svg .refline.parity line{stroke:#6b7280}svg .refline.parity text{fill:#374151}
svg .bar rect{fill:#60a5fa}svg .bar .value{font-size:10px;fill:#1d2430}svg .pct .bar rect{fill:#a78bfa}
pre{background:#f7f9fc;border:1px solid #e2e8f0;padding:8px;font-size:12px;overflow-x:auto;max-height:520px;line-height:1.35}
pre.diff span{display:block;white-space:pre}pre.diff .add{background:#dcfce7}pre.diff .del{background:#fee2e2}
.ok{color:#15803d}.bad{color:#b91c1c}.muted{color:#6b7280}
details{margin:6px 0}summary{cursor:pointer;font-size:13px;color:#1e40af}
ol.path li{margin:2px 0;font-size:13px}
.problem{border-top:2px solid #cbd5e1;margin-top:30px}
)css";

std::string Cell(const std::string& html, bool numeric = false) {
  return numeric ? "<td class=\"n\">" + html + "</td>" : "<td>" + html + "</td>";
}

std::string Header(const json& r) {
  std::string s = "<h1>Campaign " + E(r, "campaign_id") + "</h1><div class=\"meta\">";
  s += "<span>status: <b>" + E(r, "status") + "</b>";
  if (!r.value("reason", "").empty()) s += " (" + E(r, "reason") + ")";
  s += "</span>";
  if (r.contains("mode")) s += "<span>mode: " + E(r, "mode") + "</span>";
  if (r.contains("search")) {
    const json& q = r["search"];
    s += "<span>search: T=" + I(D(q, "T")) + " B=" + I(D(q, "B")) + " N=" + I(D(q, "N")) + " K=" + I(D(q, "K")) +
         "</span>";
  }
  s += "<span>started: " + E(Time(r.value("started_at_us", int64_t{0}))) + "</span>";
  s += "<span>ended: " +
       (r.value("ended_at_us", json()).is_number() ? E(Time(r["ended_at_us"].get<int64_t>()))
                                                   : std::string("(running)")) +
       "</span>";
  s += "<span>duration: <b data-duration-s=\"" + N(D(r, "duration_s")) + "\">" + E(Duration(D(r, "duration_s"))) +
       "</b></span>";
  const json total = r.value("usage", json::object()).value("total", json::object());
  s += "<span>LLM: " + I(D(total, "calls", 0)) + " calls, $" + FixedDigits(D(total, "cost_usd", 0), 4) + "</span>";
  s += "<span>evaluations: " + I(D(r.value("usage", json::object()), "evaluations", 0)) + "</span>";
  return s + "</div>";
}

std::string SummaryTable(const json& r) {
  std::string s =
      "<h2>Summary</h2><table class=\"summary\"><tr><th>problem</th><th>bound</th><th>baseline</th>"
      "<th>best (re-measured)</th><th>speedup (final, side by side)</th><th>baseline % of peak</th><th>best % of "
      "peak</th><th>best candidate</th>"
      "<th>status</th></tr>";
  const std::string cid = r.value("campaign_id", "");
  for (const json& p : r.value("problems", json::array())) {
    const json base = p.value("baseline", json()), best = p.value("best", json());
    s += "<tr>" + Cell(E(p, "name")) + Cell(E(p, "bound"));
    s += Cell(E(Micros(base.is_object() ? D(base, "latency_us") : kNone)), true);
    s += Cell(E(Micros(best.is_object() ? D(best, "latency_us") : kNone)), true);
    // The report's reading of the speedup (report.hpp): noise is not a speedup.
    const json improvement = p.value("improvement", json());
    std::string speedup = Num(p, "speedup") ? "<span class=\"headline-speedup\" data-speedup=\"" + N(D(p, "speedup")) +
                                                  "\">" + FixedDigits(D(p, "speedup"), 2) + "x</span>"
                                            : "-";
    // The headline's ~95% interval and noisy flag (the final interleaved run).
    if (Num(p, "speedup_low") && Num(p, "speedup_high")) {
      speedup += " <span class=\"meta interval\">~95% " + FixedDigits(D(p, "speedup_low"), 2) + "–" +
                 FixedDigits(D(p, "speedup_high"), 2) + "x</span>";
    }
    if (p.value("speedup_noisy", json()) == true) speedup += " <span class=\"bad\">NOISY</span>";
    if (p.value("speedup_source", json()) == kSpeedupSeparate)
      speedup += std::string(" <span class=\"meta\">") +
                 (p.value("status", "") == "running" ? "(so far)" : "(separate runs)") + "</span>";
    if (improvement == "none")
      speedup = "none";
    else if (improvement == "within_noise")
      speedup += " <span class=\"meta\">(within noise)</span>";
    s += Cell(speedup, true);
    s += Cell(FixedDigits(base.is_object() ? D(base, "percent_of_peak") : kNone, 2), true);
    s += Cell(FixedDigits(best.is_object() ? D(best, "percent_of_peak") : kNone, 2), true);
    s += Cell(best.is_object() ? E(ShortId(best.value("candidate_id", ""), cid)) : "-");
    const std::string st = p.value("status", "");
    s += Cell("<span class=\"" + std::string(st == "failed" ? "bad" : "ok") + "\">" + E(st) + "</span>" +
              (p.value("reason", "").empty() ? "" : " " + E(p, "reason")));
    s += "</tr>";
  }
  return s + "</table>";
}

std::string Bars(const json& r) {
  const json g = r.value("geomean", json::object());
  svg::BarChart speed;
  speed.title = "Final speedup over the baseline";
  speed.y_label = "speedup (x, log)";
  speed.value_suffix = "x";
  speed.log_y = true;
  speed.css_class = "speedup";
  svg::BarChart pct;
  pct.title = "Best % of peak per problem";
  pct.y_label = "% of peak (log)";
  pct.log_y = true;
  pct.css_class = "pct";
  for (const json& p : r.value("problems", json::array())) {
    const std::string name = p.value("name", "");
    if (Num(p, "speedup")) {
      speed.bars.push_back({name,
                            D(p, "speedup"),
                            name + ": " + FixedDigits(D(p, "speedup"), 3) + "x",
                            {{"problem", name}, {"speedup", N(D(p, "speedup"))}}});
    }
    const json best = p.value("best", json());
    if (best.is_object() && Num(best, "percent_of_peak")) {
      pct.bars.push_back({name,
                          D(best, "percent_of_peak"),
                          name + ": " + FixedDigits(D(best, "percent_of_peak"), 3) + "%",
                          {{"problem", name}, {"pct", N(D(best, "percent_of_peak"))}}});
    }
  }
  if (Num(g, "speedup"))
    speed.lines.push_back({D(g, "speedup"),
                           "geomean " + FixedDigits(D(g, "speedup"), 2) + "x",
                           "geomean",
                           {{"speedup", N(D(g, "speedup"))}}});
  speed.lines.push_back({1.0, "1x", "parity", {}});
  if (Num(g, "best_percent_of_peak"))
    pct.lines.push_back({D(g, "best_percent_of_peak"),
                         "geomean " + FixedDigits(D(g, "best_percent_of_peak"), 2) + "%",
                         "geomean",
                         {{"pct", N(D(g, "best_percent_of_peak"))}}});
  std::string s = "<h2>Speedup and % of peak</h2>";
  s += "<p class=\"meta\">Geometric mean over " + I(D(g, "problems", 0)) + " problems: speedup " +
       (Num(g, "speedup") ? FixedDigits(D(g, "speedup"), 3) + "x" : "-") + ", % of peak " +
       FixedDigits(D(g, "baseline_percent_of_peak"), 2) + " → " + FixedDigits(D(g, "best_percent_of_peak"), 2) + "</p>";
  return s + "<div class=\"charts\">" + svg::Render(speed) + svg::Render(pct) + "</div>";
}

std::string TraceChart(const json& p) {
  svg::LineChart c;
  const std::string name = p.value("name", "");
  c.title = name + ": % of peak per iteration";
  c.x_label = "iteration";
  c.y_label = "% of peak (log)";
  c.log_y = true;
  c.width = 860;
  c.height = 340;
  c.css_class = "trace";
  c.data = {{"problem", name}};
  svg::Series best{"best so far", "best", true, "circle", {}};
  svg::Series meas{"measurement (~95% interval)", "measurement", false, "circle", {}};
  svg::Series rem{"re-measured winner", "remeasured", false, "diamond", {}};
  for (const json& t : p.value("trace", json::array())) {
    const double it = D(t, "iteration", 0);
    if (Num(t, "best_percent_of_peak")) {
      best.points.push_back(
          {it,
           D(t, "best_percent_of_peak"),
           kNone,
           kNone,
           "iteration " + I(it) + ": best " + FixedDigits(D(t, "best_percent_of_peak"), 3) + "% of peak",
           {{"iteration", N(it)}, {"pct", N(D(t, "best_percent_of_peak"))}}});
    }
    for (const json& m : t.value("measurements", json::array())) {
      if (!Num(m, "percent_of_peak")) continue;
      svg::Point pt{it,
                    D(m, "percent_of_peak"),
                    D(m, "percent_low"),
                    D(m, "percent_high"),
                    m.value("id", "") + ": " + FixedDigits(D(m, "percent_of_peak"), 3) + "% [" +
                        FixedDigits(D(m, "percent_low"), 3) + ", " + FixedDigits(D(m, "percent_high"), 3) + "]",
                    {{"id", m.value("id", "")},
                     {"iteration", N(it)},
                     {"pct", N(D(m, "percent_of_peak"))},
                     {"low", N(D(m, "percent_low"))},
                     {"high", N(D(m, "percent_high"))}}};
      (m.value("remeasured", false) ? rem : meas).points.push_back(std::move(pt));
    }
  }
  c.series = {meas, rem, best};
  const json base = p.value("baseline", json());
  if (base.is_object() && Num(base, "percent_of_peak"))
    c.lines.push_back({D(base, "percent_of_peak"),
                       "baseline " + FixedDigits(D(base, "percent_of_peak"), 2) + "%",
                       "baseline",
                       {{"pct", N(D(base, "percent_of_peak"))}}});
  c.lines.push_back({100.0, "roofline 100%", "roofline", {{"pct", "100"}}});
  return svg::Render(c);
}

std::string IterationTable(const json& p, const std::string& cid) {
  std::string s =
      "<table class=\"iterations\"><tr><th>iteration</th><th>best latency</th><th>% of peak</th>"
      "<th>GFLOP/s</th><th>GB/s</th><th>best so far</th><th>measurements</th></tr>";
  for (const json& t : p.value("trace", json::array())) {
    s += "<tr>" + Cell(I(D(t, "iteration", 0)), true) + Cell(E(Micros(D(t, "best_latency_us"))), true) +
         Cell(FixedDigits(D(t, "best_percent_of_peak"), 3), true) + Cell(FixedDigits(D(t, "gflops"), 2), true) +
         Cell(FixedDigits(D(t, "gbs"), 2), true) +
         Cell(E(ShortId(
             t.value("best_candidate_id", json("-")).is_string() ? t["best_candidate_id"].get<std::string>() : "-",
             cid))) +
         Cell(I(static_cast<double>(t.value("measurements", json::array()).size())), true) + "</tr>";
  }
  return s + "</table>";
}

std::string PathList(const json& p, const std::string& cid) {
  const json rows = p.value("lineage", json::array());  // by_id points into it
  std::map<std::string, const json*> by_id;
  for (const json& l : rows) by_id[l.value("candidate_id", "")] = &l;
  const json path = p.value("best_path", json::array());
  if (path.empty()) return "<p class=\"muted\">The best kernel is the baseline: no candidate beat it.</p>";
  std::string s = "<ol class=\"path\"><li>baseline</li>";
  for (const json& id : path) {
    const std::string cand = id.get<std::string>();
    auto it = by_id.find(cand);
    s += "<li><b>" + E(ShortId(cand, cid)) + "</b>";
    if (it != by_id.end()) {
      const json& l = *it->second;
      s += " from " + E(ShortId(l.value("parent_beam_id", ""), cid)) + ": plan “" + E(l, "plan_title") + "”";
      s += ", " + E(Micros(D(l, "latency_us")));
      if (Num(l, "speedup_over_parent"))
        s += " (its iteration's measurement: " + FixedDigits(D(l, "speedup_over_parent"), 2) + "x over its parent)";
    }
    s += "</li>";
  }
  return s + "</ol>";
}

std::string LineageTable(const json& p, const std::string& cid) {
  const json rows = p.value("lineage", json::array());
  std::string s =
      "<details><summary>All " + I(static_cast<double>(rows.size())) +
      " candidates (candidate → parent, plan)</summary><table class=\"lineage\"><tr><th>it</th>"
      "<th>candidate</th><th>parent</th><th>plan</th><th>result</th><th>latency (its iteration)</th><th>vs parent</th>"
      "<th>kept</th></tr>";
  for (const json& l : rows) {
    std::string result = l.value("ok", false) ? E(l, "status") : E(l, "failure");
    if (l.value("attempt", 0) > 0) result += " (fix " + I(D(l, "attempt", 0)) + ")";
    s += "<tr>" + Cell(I(D(l, "iteration", 0)), true) + Cell(E(ShortId(l.value("candidate_id", ""), cid))) +
         Cell(E(ShortId(l.value("parent_beam_id", ""), cid))) + Cell(E(l, "plan_title")) +
         Cell("<span class=\"" + std::string(l.value("correct", false) ? "ok" : "bad") + "\">" + result + "</span>") +
         Cell(E(Micros(D(l, "latency_us"))), true) +
         Cell(Num(l, "speedup_over_parent") ? FixedDigits(D(l, "speedup_over_parent"), 2) + "x" : "-", true) +
         Cell(l.value("selected", false) ? "beam" : "") + "</tr>";
  }
  return s + "</table></details>";
}

std::string MemoryTable(const json& p, const std::string& cid) {
  const json items = p.value("memory", json::array());
  if (items.empty()) return "<p class=\"muted\">No memory items were read or written.</p>";
  std::string s =
      "<table class=\"memory\"><tr><th>item</th><th>title</th><th>kind</th><th>written here</th>"
      "<th>read by plans</th><th>credit</th></tr>";
  for (const json& m : items) {
    std::string title =
        m.value("known", true) ? E(m, "title") : "<span class=\"muted\">(not in the final memory)</span>";
    if (m.value("no_optimization", false)) title += " <span class=\"muted\">(no optimization)</span>";
    s += "<tr>" + Cell(E(ShortId(m.value("id", ""), cid))) + Cell(title) + Cell(E(m, "kind")) +
         Cell(m.value("written", false) ? "yes" : "no") + Cell(I(D(m, "reads", 0)), true) +
         Cell(Num(m, "credit") ? I(D(m, "credit")) : "-", true) + "</tr>";
  }
  return s + "</table>";
}

std::string Source(const std::map<std::string, std::string>& sources, const std::string& sha, bool* found) {
  auto it = sources.find(sha);
  *found = it != sources.end();
  return *found ? it->second : std::string();
}

std::string Kernel(const json& p, const std::map<std::string, std::string>& sources) {
  const json best = p.value("best", json());
  if (!best.is_object()) return "<p class=\"muted\">No kernel passed its check.</p>";
  bool have_best = false, have_base = false;
  const std::string src = Source(sources, best.value("source_sha256", ""), &have_best);
  const std::string base = Source(sources, p.value("baseline_sha256", ""), &have_base);
  std::string s = "<h3>Best kernel</h3>";
  if (!have_best) return s + "<p class=\"muted\">(source not available)</p>";
  s += "<pre class=\"source\">" + E(src) + "</pre>";
  s += "<details open><summary>Diff against the baseline</summary>";
  if (!have_base) return s + "<p class=\"muted\">(baseline source not available)</p></details>";
  s += "<pre class=\"diff\">";
  for (const DiffLine& l : LineDiff(base, src)) {
    const char* cls = l.op == '+' ? "add" : l.op == '-' ? "del" : "same";
    s += "<span class=\"" + std::string(cls) + "\">" + std::string(1, l.op) + " " + E(l.text) + "</span>";
  }
  return s + "</pre></details>";
}

std::string Problem(const json& p, const std::string& cid, const std::map<std::string, std::string>& sources) {
  std::string s = "<section class=\"problem\" data-problem=\"" + E(p, "name") + "\"><h2>" + E(p, "name") +
                  " <span class=\"muted\">" + E(p, "id") + "</span></h2>";
  s += "<p class=\"meta\"><span>bound: " + E(p, "bound") + "</span><span>flops: " + I(D(p, "flops")) +
       "</span><span>bytes: " + I(D(p, "bytes")) + "</span></p>";
  // Before the baseline's first measurement there is nothing to plot: say
  // what is happening instead of empty plots and "no kernel passed".
  if (!p.value("baseline", json()).is_object()) {
    const std::string st = p.value("status", "");
    if (st == "running") {
      s += "<p class=\"muted waiting\">Waiting for the baseline's measurement: the first evaluation of this problem "
           "(the plots, the lineage and the best kernel appear once it is measured).</p>";
      return s + "</section>";
    }
    s += "<p class=\"muted\">No baseline measurement: " + E(p, "status") +
         (p.value("reason", "").empty() ? "" : " (" + E(p, "reason") + ")") + ".</p>";
    return s + "</section>";
  }
  s += TraceChart(p);
  s += IterationTable(p, cid);
  if (Num(p.value("final", json::object()), "selected_latency_us")) {
    const json& f = p["final"];
    s += "<p class=\"meta\">Final best re-measured: ";
    const json rm = f.value("remeasured", json());
    s += rm.is_object() ? E(rm, "status") + ", " + E(Micros(D(rm, "latency_us"))) : std::string("not yet");
    if (f.value("within_noise_of_parent", json()).is_boolean())
      s += f["within_noise_of_parent"].get<bool>() ? " — within noise of its parent"
                                                   : " — confirmed faster than its parent";
    s += "</p>";
  }
  s += "<h3>How the best kernel was found</h3>" + PathList(p, cid) + LineageTable(p, cid);
  s += "<h3>Memory read and written</h3>" + MemoryTable(p, cid);
  s += Kernel(p, sources);
  return s + "</section>";
}

std::string Cost(const json& r) {
  const json calls = r.value("llm_calls", json::array());
  std::string s = "<h2>LLM cost and tokens</h2>";
  if (calls.empty()) return s + "<p class=\"muted\">No LLM calls.</p>";
  // Cumulative per role and per provider/model over time.
  struct Acc {
    double cost = 0, tokens = 0;
    int64_t calls = 0, failed = 0, in = 0, out = 0;
    double reserved = 0;
    std::map<std::string, int> sources;
    svg::Series cost_series, token_series;
  };
  std::map<std::string, Acc> by_role, by_model;
  for (const json& c : calls) {
    const std::string model = c.value("provider", "") + "/" + c.value("model", "");
    for (auto* pair : {&by_role[c.value("role", "")], &by_model[model]}) {
      Acc& a = *pair;
      a.cost += D(c, "cost_usd", 0);
      a.in += c.value("input_tokens", int64_t{0});
      a.out += c.value("output_tokens", int64_t{0});
      a.tokens = static_cast<double>(a.in + a.out);
      a.reserved += D(c, "reserved_cost_usd", 0);
      ++a.calls;
      a.failed += c.value("status", "") == "failed";
      ++a.sources[c.value("source", "")];
      const double t = D(c, "t_s", 0);
      a.cost_series.points.push_back({t, a.cost, kNone, kNone, "", {{"t", N(t)}, {"cost", N(a.cost)}}});
      a.token_series.points.push_back({t, a.tokens, kNone, kNone, "", {{"t", N(t)}, {"tokens", N(a.tokens)}}});
    }
  }
  svg::LineChart cost, tokens;
  cost.title = "Cumulative cost per role (USD)";
  cost.x_label = "seconds since the start";
  cost.y_label = "USD";
  cost.css_class = "cost";
  tokens.title = "Cumulative tokens per role";
  tokens.x_label = "seconds since the start";
  tokens.y_label = "tokens";
  tokens.css_class = "tokens";
  int k = 0;
  for (auto& [role, a] : by_role) {
    const std::string cls = "role" + std::to_string(k++ % 5);
    a.cost_series.name = a.token_series.name = role;
    a.cost_series.css_class = a.token_series.css_class = cls;
    a.cost_series.marker = a.token_series.marker = a.cost_series.points.size() > 40 ? "none" : "circle";
    cost.series.push_back(a.cost_series);
    tokens.series.push_back(a.token_series);
  }
  s += "<div class=\"charts\">" + svg::Render(cost) + svg::Render(tokens) + "</div>";
  s += "<table class=\"usage\"><tr><th>by</th><th>name</th><th>calls</th><th>failed</th><th>input tokens</th>"
       "<th>output tokens</th><th>cost (USD)</th><th>reserved (estimate, USD)</th><th>source of the figures</th></tr>";
  auto rows = [&](const std::map<std::string, Acc>& m, const char* kind) {
    for (const auto& [name, a] : m) {
      std::string src;
      for (const auto& [what, n] : a.sources) src += (src.empty() ? "" : ", ") + E(what) + " ×" + std::to_string(n);
      s += std::string("<tr>") + Cell(kind) + Cell(E(name)) + Cell(std::to_string(a.calls), true) +
           Cell(std::to_string(a.failed), true) + Cell(std::to_string(a.in), true) + Cell(std::to_string(a.out), true) +
           Cell(FixedDigits(a.cost, 6), true) + Cell(FixedDigits(a.reserved, 6), true) + Cell(src) + "</tr>";
    }
  };
  rows(by_role, "role");
  rows(by_model, "model");
  s += "</table><p class=\"meta\">“usage”: the tokens the provider reported, priced with the role's price table; "
       "the reservation is the worst case reserved before each call (prompt bytes and max_tokens).</p>";
  return s;
}

}  // namespace

const char* ReportStyleSheet() { return kStyle; }

std::vector<std::string> ReportHtmlSources(const json& r) {
  std::set<std::string> out;
  for (const json& p : r.value("problems", json::array())) {
    if (p.value("best", json()).is_object()) out.insert(p["best"].value("source_sha256", ""));
    out.insert(p.value("baseline_sha256", ""));
  }
  out.erase("");
  return {out.begin(), out.end()};
}

std::string RenderReportHtml(const json& r, const std::map<std::string, std::string>& sources) {
  const std::string cid = r.value("campaign_id", "");
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>accelopt campaign " +
      E(cid) + "</title><style>" + kStyle + "</style></head><body>";
  s += "<div class=\"report\" data-campaign=\"" + E(cid) + "\" data-status=\"" + E(r, "status") + "\">";
  if (const json t = r.value("test_stand_in", json()); t.is_object()) {
    s += "<p class=\"standin\" style=\"border:3px solid #b00;padding:.5em;font-weight:bold\">" +
         E(t.value("notice", "")) + "; memory " + E(t.value("memory", "")) + "; " + E(t.value("ranking", "")) + "</p>";
  }
  s += Header(r) + SummaryTable(r) + Bars(r);
  for (const json& p : r.value("problems", json::array())) s += Problem(p, cid, sources);
  s += Cost(r);
  s += "<p class=\"meta\">Generated by accelopt from the campaign's events.</p></div></body></html>\n";
  return s;
}

}  // namespace accelopt::workflows
