// acceloptctl experiment: arms x seeds of campaigns over the same problems,
// and the paired statistics that say whether one arm beats another
// (workflows/experiment_stats.hpp; docs/experiments.md).
//
// An experiment file:
//   {"id": "memory-ablation",
//    "spec": {...a campaign spec...},        (or "spec_file": "quick.json",
//                                             relative to the experiment file)
//    "seeds": [1, 2, 3],
//    "arms": [{"name": "memory-off", "overlay": {"memory": {"scope": "none"}}},
//             {"name": "memory-on",  "overlay": {}}]}
// Each arm x seed is one campaign: the spec, the arm's overlay merged into it
// (JSON merge patch), "seed" set, and "experiment": {id, arm} as its tag,
// submitted with the idempotency key experiment:<id>:<arm>:<seed> (submitting
// the file again submits only what is missing). The seeds go in order and,
// within a seed, the arms: the arms of one seed run side by side on the
// daemon's evaluation slots. Nothing else is stored: the experiment is its
// tagged campaigns, so list/get/wait/cancel/report read the campaigns.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "cli/commands.hpp"
#include "workflows/experiment_stats.hpp"

namespace accelopt::cli {
// Named (not anonymous): the unity build puts this file beside
// memory_commands.cpp, which has a List() of its own.
namespace experiment_impl {

namespace wf = workflows;

struct Arm {
  std::string name;
  json overlay = json::object();
};

struct Experiment {
  std::string id;
  json spec;
  std::vector<int64_t> seeds;
  std::vector<Arm> arms;
};

bool ValidName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

Result<Experiment> ParseExperiment(Env* env, const std::string& path) {
  auto j = env ? ReadJsonFile(env, path) : ReadJsonFile(path);
  if (!j.ok()) return j.status();
  if (!j->is_object()) return InvalidArgument(path + ": an experiment is a JSON object");
  for (const auto& [k, v] : j->items()) {
    if (k != "id" && k != "spec" && k != "spec_file" && k != "seeds" && k != "arms") {
      return InvalidArgument(path + ": unknown key '" + k + "' (known: id, spec, spec_file, seeds, arms)");
    }
  }
  Experiment e;
  if (!j->contains("id") || !(*j)["id"].is_string() || !ValidName((*j)["id"].get<std::string>())) {
    return InvalidArgument(path + ": 'id' must be a name of letters, digits, '-', '_' or '.'");
  }
  e.id = (*j)["id"].get<std::string>();
  if (j->contains("spec") == j->contains("spec_file")) {
    return InvalidArgument(path + ": give the campaign spec as 'spec' (an object) or 'spec_file' (a path), one of them");
  }
  if (j->contains("spec")) {
    e.spec = (*j)["spec"];
  } else {
    if (!(*j)["spec_file"].is_string()) return InvalidArgument(path + ": 'spec_file' must be a path");
    std::filesystem::path f = (*j)["spec_file"].get<std::string>();
    if (f.is_relative()) f = std::filesystem::path(path).parent_path() / f;
    auto s = env ? ReadJsonFile(env, f.string()) : ReadJsonFile(f.string());
    if (!s.ok()) return s.status().WithContext(path + ": spec_file");
    e.spec = *s;
  }
  if (!e.spec.is_object()) return InvalidArgument(path + ": the campaign spec must be a JSON object");
  if (!j->contains("seeds") || !(*j)["seeds"].is_array() || (*j)["seeds"].empty()) {
    return InvalidArgument(path + ": 'seeds' must be a non-empty array of integers, e.g. [1, 2, 3]");
  }
  std::set<int64_t> seen;
  for (const auto& s : (*j)["seeds"]) {
    if (!s.is_number_integer() || s.get<int64_t>() < 0) return InvalidArgument(path + ": 'seeds' holds a non-integer or negative seed");
    if (!seen.insert(s.get<int64_t>()).second) return InvalidArgument(path + ": seed " + s.dump() + " is listed twice");
    e.seeds.push_back(s.get<int64_t>());
  }
  if (!j->contains("arms") || !(*j)["arms"].is_array() || (*j)["arms"].size() < 2) {
    return InvalidArgument(path + ": 'arms' must list at least two arms ({\"name\", \"overlay\"}) to compare");
  }
  std::set<std::string> names;
  for (const auto& a : (*j)["arms"]) {
    if (!a.is_object() || !a.contains("name") || !a["name"].is_string() || !ValidName(a["name"].get<std::string>())) {
      return InvalidArgument(path + ": every arm needs a 'name' of letters, digits, '-', '_' or '.'");
    }
    Arm arm{a["name"].get<std::string>()};
    for (const auto& [k, v] : a.items()) {
      if (k != "name" && k != "overlay") return InvalidArgument(path + ": arm '" + arm.name + "': unknown key '" + k + "'");
    }
    if (a.contains("overlay")) {
      if (!a["overlay"].is_object()) return InvalidArgument(path + ": arm '" + arm.name + "': 'overlay' must be an object");
      arm.overlay = a["overlay"];
    }
    if (!names.insert(arm.name).second) return InvalidArgument(path + ": arm '" + arm.name + "' is listed twice");
    e.arms.push_back(std::move(arm));
  }
  return e;
}

// The experiment's campaigns (GET /v1/campaigns, tagged with `id`), oldest
// first. nullopt when the call failed (the error was printed).
std::optional<std::vector<json>> CampaignsOf(ApiClient& api, const std::string& id, int* exit_code) {
  auto r = Ask(api, "GET", "/v1/campaigns");
  if (!r.ok()) {
    *exit_code = r.exit_code;
    return std::nullopt;
  }
  std::vector<json> out;
  for (const auto& c : r.body.value("campaigns", json::array())) {
    const json& t = c.value("experiment", json());
    if (t.is_object() && t.value("id", "") == id) out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [](const json& a, const json& b) {
    return a.value("started_at_us", int64_t{0}) < b.value("started_at_us", int64_t{0});
  });
  return out;
}

bool Ended(const json& c) {
  const std::string s = c.value("state", "");
  return s != "running" && s != "paused";
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

int Submit(ApiClient& api, const Options& o) {
  if (o.args.size() < 2) {
    std::cerr << "acceloptctl experiment submit: the experiment file is required\n";
    return kExitUsage;
  }
  auto e = ParseExperiment(o.env, o.args[1]);
  if (!e.ok()) {
    std::cerr << "acceloptctl experiment: " << e.status().message() << "\n";
    return kExitUsage;
  }
  std::vector<std::vector<std::string>> rows;
  json planned = json::array();
  for (int64_t seed : e->seeds) {
    for (const Arm& arm : e->arms) {
      json spec = e->spec;
      spec.merge_patch(arm.overlay);
      spec["seed"] = seed;
      spec["experiment"] = {{"id", e->id}, {"arm", arm.name}};
      json body = {{"spec", spec},
                   {"idempotency_key", "experiment:" + e->id + ":" + arm.name + ":" + std::to_string(seed)}};
      if (o.dry_run) {
        planned.push_back({{"arm", arm.name}, {"seed", seed}, {"spec", spec}});
        rows.push_back({arm.name, std::to_string(seed), "-", "not submitted (--dry-run)"});
        continue;
      }
      auto r = Ask(api, "POST", "/v1/campaigns", &body);
      if (!r.ok()) {
        std::cerr << "acceloptctl experiment submit: arm '" << arm.name << "', seed " << seed
                  << " was not submitted (the ones above were; submitting the file again submits only what is missing)\n";
        return r.exit_code;
      }
      rows.push_back({arm.name, std::to_string(seed), r.body.value("id", ""),
                      r.body.value("created", true) ? "submitted" : "already submitted"});
    }
  }
  if (o.dry_run) {
    if (o.json_output) std::cout << Dump(json{{"experiment", e->id}, {"would_submit", planned}}, 2) << "\n";
    else PrintTable({"ARM", "SEED", "CAMPAIGN", ""}, rows);
    return kExitOk;
  }
  if (o.json_output && !o.wait) {
    json out = json::array();
    for (const auto& row : rows) out.push_back({{"arm", row[0]}, {"seed", std::stoll(row[1])}, {"campaign", row[2]}, {"created", row[3] == "submitted"}});
    std::cout << Dump(json{{"experiment", e->id}, {"campaigns", out}}, 2) << "\n";
  } else if (!o.json_output) {
    std::cout << "experiment " << e->id << ": " << e->arms.size() << " arms x " << e->seeds.size() << " seeds\n";
    PrintTable({"ARM", "SEED", "CAMPAIGN", ""}, rows);
  }
  if (!o.wait) return kExitOk;
  Options w = o;
  w.args = {"wait", e->id};
  return ExperimentWait(api, w);
}

int List(ApiClient& api, const Options& o) {
  auto r = Ask(api, "GET", "/v1/campaigns");
  if (!r.ok()) return r.exit_code;
  struct Row {
    std::set<std::string> arms;
    std::set<int64_t> seeds;
    int campaigns = 0, ended = 0;
    std::map<std::string, int> states;
  };
  std::map<std::string, Row> by_id;
  for (const auto& c : r.body.value("campaigns", json::array())) {
    const json& t = c.value("experiment", json());
    if (!t.is_object()) continue;
    Row& row = by_id[t.value("id", "")];
    row.arms.insert(t.value("arm", ""));
    row.seeds.insert(t.value("seed", int64_t{0}));
    ++row.campaigns;
    row.ended += Ended(c) ? 1 : 0;
    ++row.states[c.value("state", "")];
  }
  if (o.json_output) {
    json out = json::array();
    for (const auto& [id, row] : by_id) {
      out.push_back({{"id", id}, {"arms", row.arms}, {"seeds", row.seeds}, {"campaigns", row.campaigns},
                     {"ended", row.ended}, {"states", row.states}});
    }
    std::cout << Dump(json{{"experiments", out}}, 2) << "\n";
    return kExitOk;
  }
  if (by_id.empty()) {
    std::cout << "no experiments (acceloptctl experiment submit EXP.json starts one)\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& [id, row] : by_id) {
    std::string states;
    for (const auto& [s, n] : row.states) states += (states.empty() ? "" : ", ") + std::to_string(n) + " " + s;
    rows.push_back({id, std::to_string(row.arms.size()), std::to_string(row.seeds.size()),
                    std::to_string(row.ended) + "/" + std::to_string(row.campaigns), states});
  }
  PrintTable({"EXPERIMENT", "ARMS", "SEEDS", "ENDED", "STATES"}, rows);
  return kExitOk;
}

int Get(ApiClient& api, const Options& o, const std::string& id) {
  int code = kExitOk;
  auto cs = CampaignsOf(api, id, &code);
  if (!cs) return code;
  if (cs->empty()) {
    std::cerr << "acceloptctl experiment: no experiment '" << id << "' (no campaign is tagged with it)\n";
    return kExitNotFound;
  }
  if (o.json_output) {
    std::cout << Dump(json{{"experiment", id}, {"campaigns", *cs}}, 2) << "\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : *cs) {
    std::string speedups;
    for (const auto& p : c.value("problems", json::array())) {
      const json sp = p.value("speedup", json());
      speedups += (speedups.empty() ? "" : " ") + p.value("name", "?") + " " +
                  (sp.is_number() ? Fixed(sp.get<double>(), 2) + "x" : "-");
    }
    rows.push_back({c["experiment"].value("arm", ""), std::to_string(c["experiment"].value("seed", int64_t{0})),
                    c.value("id", ""), c.value("state", ""), speedups});
  }
  PrintTable({"ARM", "SEED", "CAMPAIGN", "STATE", "SPEEDUP PER PROBLEM"}, rows);
  return kExitOk;
}

int Cancel(ApiClient& api, const std::string& id) {
  int code = kExitOk;
  auto cs = CampaignsOf(api, id, &code);
  if (!cs) return code;
  if (cs->empty()) {
    std::cerr << "acceloptctl experiment: no experiment '" << id << "'\n";
    return kExitNotFound;
  }
  int cancelled = 0;
  for (const auto& c : *cs) {
    if (Ended(c)) continue;
    auto r = Ask(api, "POST", "/v1/campaigns/" + c.value("id", "") + "/cancel");
    if (!r.ok()) return r.exit_code;
    ++cancelled;
  }
  std::cerr << "cancelled " << cancelled << " of " << cs->size() << " campaigns of experiment " << id << "\n";
  return kExitOk;
}

// The runs of the report: one per (campaign, problem) with a result.
std::vector<wf::ArmRun> RunsOf(const std::vector<json>& cs) {
  std::vector<wf::ArmRun> runs;
  for (const auto& c : cs) {
    const json& t = c["experiment"];
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
  return {{"arm_a", c.arm_a}, {"arm_b", c.arm_b}, {"seeds", c.seeds}, {"problems", c.problems},
          {"resolved", c.interval.resolved}, {"method", c.interval.method},
          {"geomean_ratio", c.geomean_ratio}, {"percent", c.percent}, {"percent_lo", c.percent_lo},
          {"percent_hi", c.percent_hi}, {"excludes_zero", c.excludes_zero()},
          {"resolvable_percent", c.resolvable_percent}};
}

int Report(ApiClient& api, const Options& o, const std::string& id) {
  int code = kExitOk;
  auto cs = CampaignsOf(api, id, &code);
  if (!cs) return code;
  if (cs->empty()) {
    std::cerr << "acceloptctl experiment: no experiment '" << id << "'\n";
    return kExitNotFound;
  }
  int running = 0;
  for (const auto& c : *cs) running += Ended(c) ? 0 : 1;
  // The reference arm: --against, else the arm submitted first.
  std::vector<std::string> arms;
  for (const auto& c : *cs) {
    const std::string a = c["experiment"].value("arm", "");
    if (std::find(arms.begin(), arms.end(), a) == arms.end()) arms.push_back(a);
  }
  const std::string against = o.against.empty() ? arms.front() : o.against;
  if (std::find(arms.begin(), arms.end(), against) == arms.end()) {
    std::cerr << "acceloptctl experiment report: no arm '" << against << "' in experiment " << id << "\n";
    return kExitUsage;
  }
  const std::vector<wf::ArmRun> runs = RunsOf(*cs);
  const auto summaries = wf::Summaries(runs);
  wf::IntervalOptions io;
  json comparisons = json::array();
  std::vector<std::string> verdicts;
  for (const auto& arm : arms) {
    if (arm == against) continue;
    for (auto metric : {wf::Metric::kSpeedup, wf::Metric::kPercentOfPeak}) {
      const wf::Comparison c = wf::Compare(runs, against, arm, metric, io);
      const std::string metric_name = metric == wf::Metric::kSpeedup ? "speedup" : "percent_of_peak";
      const std::string question = arm + " vs " + against + " (" + metric_name + ")";
      json j = IntervalJson(c);
      j["metric"] = metric_name;
      j["verdict"] = wf::Verdict(question, c);
      json pairs = json::array();
      for (const auto& p : c.pairs) pairs.push_back({{"problem", p.problem}, {"seed", p.seed}, {"a", p.a}, {"b", p.b}});
      j["pairs"] = pairs;
      comparisons.push_back(j);
      verdicts.push_back(j["verdict"].get<std::string>());
    }
  }
  if (o.json_output) {
    json arms_j = json::array();
    for (const auto& s : summaries) {
      arms_j.push_back({{"arm", s.arm}, {"runs", s.runs}, {"runs_without_result", s.runs_without_result},
                        {"seeds", s.seeds}, {"problems", s.problems}, {"geomean_speedup", s.geomean_speedup},
                        {"geomean_percent_of_peak", s.geomean_percent_of_peak}, {"cost_usd", s.cost_usd},
                        {"cost_per_seed_usd", s.cost_per_seed_usd}});
    }
    std::cout << Dump(json{{"experiment", id}, {"against", against}, {"campaigns", cs->size()},
                           {"still_running", running}, {"arms", arms_j}, {"comparisons", comparisons}},
                      2)
              << "\n";
    return kExitOk;
  }
  std::cout << "experiment " << id << ": " << cs->size() << " campaigns, " << arms.size() << " arms";
  if (running) std::cout << " (" << running << " still running: the figures below will change)";
  std::cout << "\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : summaries) {
    rows.push_back({s.arm, std::to_string(s.seeds), std::to_string(s.problems),
                    std::to_string(s.runs - s.runs_without_result) + "/" + std::to_string(s.runs),
                    s.geomean_speedup > 0 ? Fixed(s.geomean_speedup, 2) + "x" : "-",
                    s.geomean_percent_of_peak > 0 ? Fixed(s.geomean_percent_of_peak, 2) + "%" : "-",
                    "$" + Fixed(s.cost_usd, 4)});
  }
  PrintTable({"ARM", "SEEDS", "PROBLEMS", "WITH RESULT", "GEOMEAN SPEEDUP", "GEOMEAN %PEAK", "COST"}, rows);
  std::cout << "\npaired by (problem, seed) against " << against << " (~95% intervals over seeds):\n";
  for (const auto& v : verdicts) std::cout << "  " << v << "\n";
  return kExitOk;
}

}  // namespace experiment_impl

int ExperimentWait(ApiClient& api, const Options& o) {
  const std::string& id = o.args.at(1);
  const auto start = std::chrono::steady_clock::now();
  size_t last_ended = SIZE_MAX;
  for (;;) {
    int code = kExitOk;
    auto cs = experiment_impl::CampaignsOf(api, id, &code);
    if (!cs) return code;
    if (cs->empty()) {
      std::cerr << "acceloptctl experiment: no experiment '" << id << "'\n";
      return kExitNotFound;
    }
    size_t ended = 0;
    bool failed = false;
    for (const auto& c : *cs) {
      if (!experiment_impl::Ended(c)) continue;
      ++ended;
      failed = failed || c.value("state", "") != "completed";
    }
    if (ended != last_ended) {
      std::cerr << "experiment " << id << ": " << ended << "/" << cs->size() << " campaigns ended\n";
      last_ended = ended;
    }
    if (ended == cs->size()) {
      if (!o.json_output) {
        Options r = o;
        experiment_impl::Report(api, r, id);
      }
      return failed ? kExitPartial : kExitOk;
    }
    if (o.timeout_s > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > o.timeout_s) {
      std::cerr << "acceloptctl experiment wait: --timeout passed with " << (cs->size() - ended)
                << " campaigns still running\n";
      return kExitTimeout;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

int CmdExperiment(ApiClient& api, const Options& o) {
  static const char kUsage[] =
      "acceloptctl experiment: one of submit EXP.json [--wait], list, get ID, wait ID, cancel ID, "
      "report ID [--against ARM]\n";
  if (o.args.empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  const std::string& sub = o.args[0];
  if (sub == "submit") return experiment_impl::Submit(api, o);
  if (sub == "list") return experiment_impl::List(api, o);
  if (sub != "get" && sub != "wait" && sub != "cancel" && sub != "report") {
    std::cerr << "acceloptctl experiment: unknown subcommand '" << sub << "'\n" << kUsage;
    return kExitUsage;
  }
  if (o.args.size() < 2) {
    std::cerr << "acceloptctl experiment " << sub << ": the experiment id is required\n";
    return kExitUsage;
  }
  const std::string& id = o.args[1];
  if (sub == "get") return experiment_impl::Get(api, o, id);
  if (sub == "wait") return ExperimentWait(api, o);
  if (sub == "cancel") return experiment_impl::Cancel(api, id);
  return experiment_impl::Report(api, o, id);
}

}  // namespace accelopt::cli
