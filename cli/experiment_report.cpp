// acceloptctl experiment report: the paired statistics of an experiment's
// campaigns (workflows/experiment_stats.hpp) as text, JSON or one HTML page
// (workflows/experiment_html.hpp).
//
// The arms are paired by (problem, seed) against the reference arm (the
// first submitted that is not "learn", or --against), for the speedup and
// for % of peak: per comparison the pairs, the interval over seeds, the
// verdict sentence, and per problem whether the arm helped, hurt (negative
// transfer) or could not be told apart. JSON and HTML also carry each
// campaign's cost-efficiency curve, read from its events.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/experiment.hpp"
#include "workflows/experiment_html.hpp"
#include "workflows/experiment_stats.hpp"

namespace accelopt::cli {
namespace experiment_report_impl {

namespace wf = workflows;

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// The runs of the report: one per (campaign, problem) of the compared arms.
// Campaigns whose figures came from a test-only stand-in (their summary's
// "test_stand_in") are never ranked with measurements: where both kinds
// are present, the stand-in's are left out, said on stderr.
std::vector<wf::ArmRun> RunsOf(const std::vector<json>& cs) {
  std::vector<wf::ArmRun> runs;
  bool any_measured = false;
  for (const auto& c : cs) any_measured |= !c.contains("test_stand_in") || c["test_stand_in"].is_null();
  for (const auto& c : cs) {
    const json& t = c["experiment"];
    if (t.value("arm", "") == kLearnArm) continue;
    if (c.contains("test_stand_in") && !c["test_stand_in"].is_null()) {
      if (any_measured) {
        std::cerr << "campaign " << c.value("id", "?") << " left out: its figures are a test stand-in's, never "
                  << "ranked with measurements\n";
        continue;
      }
    }
    const json& problems = c.value("problems", json::array());
    const double cost = c.value("spend", json::object()).value("cost_usd", 0.0);
    for (const auto& p : problems) {
      wf::ArmRun r;
      r.arm = t.value("arm", "");
      r.seed = t.value("seed", int64_t{0});
      r.problem = p.value("id", p.value("name", "?"));
      const json sp = p.value("speedup", json()), pct = p.value("percent_of_peak", json());
      r.speedup = sp.is_number() ? sp.get<double>() : 0;
      r.percent_of_peak = pct.is_number() ? pct.get<double>() : 0;
      r.cost_usd = problems.empty() ? 0 : cost / static_cast<double>(problems.size());
      runs.push_back(r);
    }
  }
  return runs;
}

json IntervalJson(const wf::Comparison& c) {
  return {{"arm_a", c.arm_a},
          {"arm_b", c.arm_b},
          {"seeds", c.seeds},
          {"problems", c.problems},
          {"resolved", c.interval.resolved},
          {"method", c.interval.method},
          {"geomean_ratio", c.geomean_ratio},
          {"percent", c.percent},
          {"percent_lo", c.percent_lo},
          {"percent_hi", c.percent_hi},
          {"excludes_zero", c.excludes_zero()},
          {"resolvable_percent", c.resolvable_percent}};
}

// A campaign's events (every page), as the workflow's Event values.
std::optional<std::vector<wf::Event>> EventsOf(ApiClient& api, const std::string& id, int* exit_code) {
  std::vector<wf::Event> out;
  uint64_t after = 0;
  for (;;) {
    auto r = Ask(api, "GET", "/v1/campaigns/" + id + "/events?after=" + std::to_string(after) + "&limit=100000");
    if (!r.ok()) {
      *exit_code = r.exit_code;
      return std::nullopt;
    }
    const json events = r.body.value("events", json::array());
    for (const auto& e : events) {
      wf::Event ev;
      ev.type = e.value("type", "");
      ev.data = e.value("data", json::object());
      ev.schema_version = e.value("schema_version", 1);
      ev.recorded_at_us = e.value("recorded_at_us", int64_t{0});
      out.push_back(std::move(ev));
    }
    const uint64_t next = r.body.value("next", after);
    if (events.empty() || next == after) return out;
    after = next;
  }
}

// The whole report as JSON. `curves`: also read every campaign's events for
// its cost-efficiency curve. nullopt: a call failed (*exit_code).
std::optional<json> BuildReport(ApiClient& api, const std::string& id, const std::vector<json>& cs,
                                const std::string& against, const std::vector<std::string>& arms, bool curves,
                                int* exit_code) {
  int running = 0;
  for (const auto& c : cs) running += CampaignEnded(c) ? 0 : 1;
  const std::vector<wf::ArmRun> runs = RunsOf(cs);
  wf::IntervalOptions io;
  json comparisons = json::array();
  for (const auto& arm : arms) {
    if (arm == against) continue;
    for (auto metric : {wf::Metric::kSpeedup, wf::Metric::kPercentOfPeak}) {
      const wf::Comparison c = wf::Compare(runs, against, arm, metric, io);
      const std::string metric_name = metric == wf::Metric::kSpeedup ? "speedup" : "percent_of_peak";
      json j = IntervalJson(c);
      j["metric"] = metric_name;
      j["verdict"] = wf::Verdict(arm + " vs " + against + " (" + metric_name + ")", c);
      json pairs = json::array();
      for (const auto& p : c.pairs) pairs.push_back({{"problem", p.problem}, {"seed", p.seed}, {"a", p.a}, {"b", p.b}});
      j["pairs"] = pairs;
      json per_problem = json::array();
      for (const auto& po : wf::PerProblem(runs, against, arm, metric, io)) {
        json one = IntervalJson(po.comparison);
        one["problem"] = po.problem;
        one["outcome"] = po.outcome;
        per_problem.push_back(one);
      }
      j["per_problem"] = per_problem;
      comparisons.push_back(j);
    }
  }
  json arms_j = json::array();
  for (const auto& s : wf::Summaries(runs)) {
    arms_j.push_back({{"arm", s.arm},
                      {"runs", s.runs},
                      {"runs_without_result", s.runs_without_result},
                      {"seeds", s.seeds},
                      {"problems", s.problems},
                      {"geomean_speedup", s.geomean_speedup},
                      {"geomean_percent_of_peak", s.geomean_percent_of_peak},
                      {"cost_usd", s.cost_usd},
                      {"cost_per_seed_usd", s.cost_per_seed_usd}});
  }
  json learn = json::array(), curves_j = json::array();
  for (const auto& c : cs) {
    const json& t = c["experiment"];
    if (t.value("arm", "") == kLearnArm) {
      learn.push_back(
          {{"seed", t.value("seed", int64_t{0})}, {"campaign", c.value("id", "")}, {"state", c.value("state", "")}});
      continue;
    }
    if (!curves) continue;
    auto events = EventsOf(api, c.value("id", ""), exit_code);
    if (!events) return std::nullopt;
    json points = json::array();
    for (const auto& p : wf::CostEfficiencyCurve(*events))
      points.push_back({p.cost_usd, p.best_percent_of_peak, p.tokens});
    curves_j.push_back({{"arm", t.value("arm", "")},
                        {"seed", t.value("seed", int64_t{0})},
                        {"campaign", c.value("id", "")},
                        {"points", points},
                        {"zero_price", wf::AllZeroPriced(*events)}});
  }
  json out = {{"experiment", id}, {"against", against},         {"campaigns", cs.size()}, {"still_running", running},
              {"arms", arms_j},   {"comparisons", comparisons}, {"learn", learn}};
  if (curves) out["cost_curves"] = curves_j;
  return out;
}

void PrintText(const json& r, size_t arms) {
  std::cout << "experiment " << r["experiment"].get<std::string>() << ": " << r["campaigns"].get<size_t>()
            << " campaigns, " << arms << " arms";
  if (!r["learn"].empty()) std::cout << " (+ " << r["learn"].size() << " learn campaigns)";
  if (r["still_running"].get<int>() > 0) {
    std::cout << " (" << r["still_running"].get<int>() << " still running: the figures below will change)";
  }
  std::cout << "\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : r["arms"]) {
    const double sp = s["geomean_speedup"], pct = s["geomean_percent_of_peak"];
    rows.push_back({s["arm"], std::to_string(s["seeds"].get<int>()), std::to_string(s["problems"].get<int>()),
                    std::to_string(s["runs"].get<int>() - s["runs_without_result"].get<int>()) + "/" +
                        std::to_string(s["runs"].get<int>()),
                    sp > 0 ? Fixed(sp, 2) + "x" : "-", pct > 0 ? Fixed(pct, 2) + "%" : "-",
                    "$" + Fixed(s["cost_usd"].get<double>(), 4)});
  }
  PrintTable({"ARM", "SEEDS", "PROBLEMS", "WITH RESULT", "GEOMEAN SPEEDUP", "GEOMEAN %PEAK", "COST"}, rows);
  std::cout << "\npaired by (problem, seed) against " << r["against"].get<std::string>()
            << " (~95% intervals over seeds):\n";
  for (const auto& c : r["comparisons"]) {
    std::cout << "  " << c["verdict"].get<std::string>() << "\n";
    std::string line;
    for (const auto& p : c["per_problem"]) {
      line += (line.empty() ? "" : "; ") + p["problem"].get<std::string>() + " " + p["outcome"].get<std::string>();
      if (p["resolved"].get<bool>()) {
        line += " " + Fixed(p["percent"].get<double>(), 1) + "% [" + Fixed(p["percent_lo"].get<double>(), 1) + ", " +
                Fixed(p["percent_hi"].get<double>(), 1) + "]";
      }
      if (p["outcome"] == "hurt") line += " (negative transfer)";
    }
    if (!line.empty()) std::cout << "    per problem: " << line << "\n";
  }
}

}  // namespace experiment_report_impl

int ExperimentReport(ApiClient& api, const Options& o, const std::string& id) {
  namespace impl = experiment_report_impl;
  namespace wf = workflows;
  int code = kExitOk;
  auto cs = ExperimentCampaigns(api, id, &code, /*must_exist=*/true);
  if (!cs) return code;
  // The compared arms in submission order; the reference: --against, else
  // the first of them.
  std::vector<std::string> arms;
  for (const auto& c : *cs) {
    const std::string a = c["experiment"].value("arm", "");
    if (a != kLearnArm && std::find(arms.begin(), arms.end(), a) == arms.end()) arms.push_back(a);
  }
  if (arms.empty()) {
    std::cerr << "acceloptctl experiment report: experiment " << id
              << " has only learn campaigns so far (its arms are submitted once they complete)\n";
    return kExitNotFound;
  }
  const std::string against = o.against.empty() ? arms.front() : o.against;
  if (std::find(arms.begin(), arms.end(), against) == arms.end()) {
    std::cerr << "acceloptctl experiment report: no arm '" << against << "' in experiment " << id << "\n";
    return kExitUsage;
  }
  const bool html = !o.html_file.empty();
  auto report = impl::BuildReport(api, id, *cs, against, arms, html || o.json_output, &code);
  if (!report) return code;
  if (html) {
    const int w = WriteOutputFile(o.html_file, wf::RenderExperimentHtml(*report), "acceloptctl experiment report");
    if (w != kExitOk || !o.json_output) return w;
  }
  if (o.json_output) {
    std::cout << Dump(*report, 2) << "\n";
    return kExitOk;
  }
  impl::PrintText(*report, arms.size());
  return kExitOk;
}

}  // namespace accelopt::cli
