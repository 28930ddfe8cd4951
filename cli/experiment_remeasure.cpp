// acceloptctl experiment remeasure ID [--against ARM]: the final winners of
// two arms put side by side. For every (problem, seed) where both the
// reference arm's and another arm's campaign have a best kernel, one judge
// run on one slot checks and times both interleaved (POST /v1/remeasure:
// the other arm's kernel as the candidate, the reference arm's as the
// comparison), so the ratio is not two measurements taken at different
// times. The ratios are then paired over seeds like the report's
// (workflows/experiment_stats.hpp): per arm the geomean ratio with its
// interval and the verdict, per problem helped / hurt / unresolved.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>

#include "cli/commands.hpp"
#include "cli/experiment.hpp"
#include "workflows/experiment_stats.hpp"

namespace accelopt::cli {
namespace experiment_remeasure_impl {

// problem id -> its best kernel, for one campaign (GET /v1/campaigns/ID/best).
std::optional<std::map<std::string, std::string>> BestOf(ApiClient& api, const std::string& campaign, int* exit_code) {
  auto r = Ask(api, "GET", "/v1/campaigns/" + campaign + "/best");
  if (!r.ok()) {
    *exit_code = r.exit_code;
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  for (const json& b : r.body.value("best", json::array())) {
    const std::string src = b.value("source", "");
    if (!src.empty()) out[b.value("id", "")] = src;
  }
  return out;
}

}  // namespace experiment_remeasure_impl

int ExperimentRemeasure(ApiClient& api, const Options& o, const std::string& id) {
  namespace impl = experiment_remeasure_impl;
  namespace wf = workflows;
  int code = kExitOk;
  auto cs = ExperimentCampaigns(api, id, &code, /*must_exist=*/true);
  if (!cs) return code;
  // arm -> seed -> campaign; the arms in submission order.
  std::vector<std::string> arms;
  std::map<std::string, std::map<int64_t, json>> by;
  for (const auto& c : *cs) {
    const std::string arm = c["experiment"].value("arm", "");
    if (arm == kLearnArm) continue;
    if (std::find(arms.begin(), arms.end(), arm) == arms.end()) arms.push_back(arm);
    by[arm][c["experiment"].value("seed", int64_t{0})] = c;
  }
  if (arms.size() < 2) {
    std::cerr << "acceloptctl experiment remeasure: experiment " << id << " has fewer than two arms with campaigns\n";
    return kExitNotFound;
  }
  const std::string against = o.against.empty() ? arms.front() : o.against;
  if (!by.count(against)) {
    std::cerr << "acceloptctl experiment remeasure: no arm '" << against << "' in experiment " << id << "\n";
    return kExitUsage;
  }
  for (const auto& c : *cs) {
    if (!CampaignEnded(c)) {
      std::cerr << "acceloptctl experiment remeasure: campaign " << c.value("id", "")
                << " is still running: re-measure the winners once every campaign ended\n";
      return kExitUsage;
    }
  }
  std::vector<wf::ArmRun> runs;
  json rows = json::array();
  std::vector<std::vector<std::string>> table;
  for (const auto& arm : arms) {
    if (arm == against) continue;
    for (const auto& [seed, ref] : by[against]) {
      auto other = by[arm].find(seed);
      if (other == by[arm].end()) continue;
      auto a = impl::BestOf(api, ref.value("id", ""), &code);
      if (!a) return code;
      auto b = impl::BestOf(api, other->second.value("id", ""), &code);
      if (!b) return code;
      // The reference arm's evaluation settings: both kernels are timed under them.
      auto spec = Ask(api, "GET", "/v1/campaigns/" + ref.value("id", ""));
      if (!spec.ok()) return spec.exit_code;
      const json settings = spec.body.value("spec", json::object()).value("evaluation", json::object());
      for (const auto& [problem, src_a] : *a) {
        auto src_b = b->find(problem);
        if (src_b == b->end()) continue;
        std::cerr << "re-measuring " << problem << " seed " << seed << ": " << arm << " beside " << against << "\n";
        json body = {{"problem", problem},
                     {"source", src_b->second},
                     {"compare_source", src_a},
                     {"label", "experiment " + id + ": " + arm + " vs " + against + ", seed " + std::to_string(seed)}};
        if (!settings.empty()) body["settings"] = settings;
        auto r = Ask(api, "POST", "/v1/remeasure", &body, std::chrono::minutes(30));
        if (!r.ok()) return r.exit_code;
        const json result = r.body.value("result", json::object());
        const json cmp = result.value("comparison", json());
        json row = {{"arm", arm},
                    {"against", against},
                    {"problem", problem},
                    {"seed", seed},
                    {"status", result.value("status", "")},
                    {"correct", result.value("correct", false)}};
        std::string ratio = "-";
        if (cmp.is_object() && cmp.value("speedup", 0.0) > 0) {
          row["ratio"] = cmp["speedup"];
          row["ratio_low"] = cmp.value("speedup_low", json());
          row["ratio_high"] = cmp.value("speedup_high", json());
          row["noisy"] = cmp.value("noisy", false);
          ratio = FormatDouble(cmp["speedup"].get<double>(), 3) + "x [" +
                  FormatDouble(cmp.value("speedup_low", 0.0), 3) + "-" +
                  FormatDouble(cmp.value("speedup_high", 0.0), 3) + "]" + (cmp.value("noisy", false) ? " NOISY" : "");
          // The reference arm is 1 by construction; the other its ratio.
          runs.push_back({against, problem, seed, 1.0, 0, 0});
          runs.push_back({arm, problem, seed, cmp["speedup"].get<double>(), 0, 0});
        } else {
          row["reason"] = result.value("reason", "");
          ratio = "- (" + result.value("status", std::string("?")) + ": " + result.value("reason", std::string()) + ")";
        }
        rows.push_back(row);
        table.push_back({arm, problem, std::to_string(seed), ratio});
      }
    }
  }
  json comparisons = json::array();
  std::vector<std::string> verdicts;
  for (const auto& arm : arms) {
    if (arm == against) continue;
    const wf::Comparison c = wf::Compare(runs, against, arm, wf::Metric::kSpeedup, wf::IntervalOptions{});
    json per = json::array();
    for (const auto& po : wf::PerProblem(runs, against, arm, wf::Metric::kSpeedup, wf::IntervalOptions{})) {
      per.push_back({{"problem", po.problem},
                     {"outcome", po.outcome},
                     {"percent", po.comparison.percent},
                     {"percent_lo", po.comparison.percent_lo},
                     {"percent_hi", po.comparison.percent_hi},
                     {"seeds", po.comparison.seeds}});
    }
    const std::string verdict = wf::Verdict(arm + " vs " + against + " (winners side by side)", c);
    verdicts.push_back(verdict);
    comparisons.push_back({{"arm_a", against},
                           {"arm_b", arm},
                           {"seeds", c.seeds},
                           {"problems", c.problems},
                           {"resolved", c.interval.resolved},
                           {"percent", c.percent},
                           {"percent_lo", c.percent_lo},
                           {"percent_hi", c.percent_hi},
                           {"excludes_zero", c.excludes_zero()},
                           {"verdict", verdict},
                           {"per_problem", per}});
  }
  if (o.json_output) {
    std::cout
        << Dump(json{{"experiment", id}, {"against", against}, {"measurements", rows}, {"comparisons", comparisons}}, 2)
        << "\n";
    return kExitOk;
  }
  std::cout << "experiment " << id << ": the winners re-measured side by side, each pair in one judge run "
            << "(RATIO: the arm's kernel over " << against << "'s, ~95% interval)\n";
  PrintTable({"ARM", "PROBLEM", "SEED", "RATIO"}, table);
  std::cout << "\n";
  for (const auto& v : verdicts) std::cout << "  " << v << "\n";
  return kExitOk;
}

}  // namespace accelopt::cli
