// acceloptctl experiment: arms x seeds of campaigns over the same problems,
// and the paired statistics that say whether one arm beats another
// (workflows/experiment_stats.hpp; docs/experiments.md). The file and the
// tagged campaigns: cli/experiment.hpp; the report: experiment_report.cpp.
//
// submit: the learn campaigns first (if the file has "learn"), then, seed by
// seed once its learning completed, the arms; the seeds go in order and,
// within a seed, the arms, so the arms of one seed run side by side on the
// daemon's evaluation slots. extend: one more seed (the nightly timer's
// job, systemd/acceloptd-experiment@.timer).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "cli/commands.hpp"
#include "cli/experiment.hpp"

namespace accelopt::cli {
// Named (not anonymous): the unity build puts this file beside
// memory_commands.cpp, which has a List() of its own.
namespace experiment_impl {

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

struct Submitted {
  std::string arm;
  int64_t seed = 0;
  std::string campaign;
  std::string note;    // "submitted" | "already submitted" | why not
  std::string budget;  // equal spend: the budget it got and from which campaign
};

// POSTs one campaign of the experiment; false when the call failed (the
// error was printed).
bool Post(ApiClient& api, const ExperimentFile& e, const std::string& arm, const json& overlay, int64_t seed,
          std::vector<Submitted>* done, int* exit_code) {
  json body = {{"spec", ExperimentCampaignSpec(e, arm, overlay, seed)},
               {"idempotency_key", ExperimentKey(e.id, arm, seed)}};
  auto r = Ask(api, "POST", "/v1/campaigns", &body);
  if (!r.ok()) {
    std::cerr << "acceloptctl experiment: arm '" << arm << "', seed " << seed
              << " was not submitted (the ones above were; submitting the file again submits only what is missing)\n";
    *exit_code = r.exit_code;
    return false;
  }
  done->push_back(
      {arm, seed, r.body.value("id", ""), r.body.value("created", true) ? "submitted" : "already submitted"});
  return true;
}

// Waits until each learn campaign in `learn` (seed -> campaign id) ended;
// returns the seeds whose learning completed. nullopt: a call failed or
// --timeout passed (*exit_code says which).
std::optional<std::set<int64_t>> AwaitLearning(ApiClient& api, const Options& o,
                                               const std::map<int64_t, std::string>& learn, int* exit_code) {
  const auto start = std::chrono::steady_clock::now();
  std::cerr << "waiting for " << learn.size()
            << " learn campaign(s) to complete before the arms that use their memory (interrupted: submit the file "
               "again to go on)\n";
  size_t last = SIZE_MAX;
  for (;;) {
    std::set<int64_t> completed;
    size_t ended = 0;
    for (const auto& [seed, id] : learn) {
      auto r = Ask(api, "GET", "/v1/campaigns/" + id);
      if (!r.ok()) {
        *exit_code = r.exit_code;
        return std::nullopt;
      }
      if (!CampaignEnded(r.body)) continue;
      ++ended;
      if (r.body.value("state", "") == "completed") {
        completed.insert(seed);
      } else {
        std::cerr << "acceloptctl experiment: the learn campaign of seed " << seed << " (" << id << ") ended "
                  << r.body.value("state", "?") << ": that seed's arms are not submitted\n";
      }
    }
    if (ended != last) {
      std::cerr << "learning: " << ended << "/" << learn.size() << " ended\n";
      last = ended;
    }
    if (ended == learn.size()) return completed;
    if (o.timeout_s > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > o.timeout_s) {
      std::cerr << "acceloptctl experiment: --timeout passed with " << (learn.size() - ended)
                << " learn campaigns still running\n";
      *exit_code = kExitTimeout;
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

// Waits until campaign `id` ended and returns its spend ({"cost_usd",
// "tokens", ...}); nullopt when a call failed or --timeout passed.
std::optional<json> AwaitSpend(ApiClient& api, const Options& o, const std::string& id, int* exit_code) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    auto r = Ask(api, "GET", "/v1/campaigns/" + id);
    if (!r.ok()) {
      *exit_code = r.exit_code;
      return std::nullopt;
    }
    if (CampaignEnded(r.body)) return r.body.value("spend", json::object());
    if (o.timeout_s > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > o.timeout_s) {
      std::cerr << "acceloptctl experiment: --timeout passed waiting for " << id << " to end\n";
      *exit_code = kExitTimeout;
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

// Submits `seeds` of the experiment (learning first), prints what it did
// and, with --wait, waits for the whole experiment.
int SubmitSeeds(ApiClient& api, const Options& o, const ExperimentFile& e, const std::vector<int64_t>& seeds) {
  std::vector<Submitted> done;
  if (o.dry_run) {
    json planned = json::array();
    for (int64_t seed : seeds) {
      if (e.learn_overlay) {
        planned.push_back({{"arm", kLearnArm},
                           {"seed", seed},
                           {"spec", ExperimentCampaignSpec(e, kLearnArm, *e.learn_overlay, seed)}});
        done.push_back({kLearnArm, seed, "-", "not submitted (--dry-run)"});
      }
      for (const ExperimentArm& arm : e.arms) {
        json p = {{"arm", arm.name}, {"seed", seed}, {"spec", ExperimentCampaignSpec(e, arm.name, arm.overlay, seed)}};
        if (!arm.spend_of.empty()) p["budget_from_spend_of"] = arm.spend_of;
        planned.push_back(std::move(p));
        std::string note =
            e.learn_overlay ? "not submitted (--dry-run; after its learning)" : "not submitted (--dry-run)";
        if (!arm.spend_of.empty())
          note += "; budget = the spend of arm '" + arm.spend_of + "', seed " + std::to_string(seed);
        done.push_back({arm.name, seed, "-", note});
      }
    }
    if (o.json_output) {
      std::cout << Dump(json{{"experiment", e.id}, {"would_submit", planned}}, 2) << "\n";
      return kExitOk;
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& d : done) rows.push_back({d.arm, std::to_string(d.seed), d.campaign, d.note});
    PrintTable({"ARM", "SEED", "CAMPAIGN", ""}, rows);
    return kExitOk;
  }
  int code = kExitOk;
  std::set<int64_t> ready(seeds.begin(), seeds.end());
  if (e.learn_overlay) {
    std::map<int64_t, std::string> learn;
    for (int64_t seed : seeds) {
      if (!Post(api, e, kLearnArm, *e.learn_overlay, seed, &done, &code)) return code;
      learn[seed] = done.back().campaign;
    }
    auto completed = AwaitLearning(api, o, learn, &code);
    if (!completed) return code;
    ready = *completed;
  }
  for (int64_t seed : seeds) {
    for (const ExperimentArm& arm : e.arms) {
      if (!ready.count(seed)) {
        done.push_back({arm.name, seed, "-", "not submitted: its learning did not complete"});
        continue;
      }
      if (arm.spend_of.empty()) {
        if (!Post(api, e, arm.name, arm.overlay, seed, &done, &code)) return code;
        continue;
      }
      // Equal spend: after the reference arm's campaign of this seed ended.
      std::string ref_id;
      for (const auto& d : done) {
        if (d.arm == arm.spend_of && d.seed == seed && d.campaign != "-") ref_id = d.campaign;
      }
      if (ref_id.empty()) {
        done.push_back({arm.name, seed, "-", "not submitted: arm '" + arm.spend_of + "' of this seed was not"});
        continue;
      }
      std::cerr << "experiment " << e.id << ": arm '" << arm.name << "', seed " << seed << " waits for " << ref_id
                << " (arm '" << arm.spend_of << "') to end: it gets exactly that campaign's spend\n";
      auto spend = AwaitSpend(api, o, ref_id, &code);
      if (!spend) return code;
      std::string what;
      const json overlay = EqualSpendOverlay(arm.overlay, *spend, &what);
      if (!Post(api, e, arm.name, overlay, seed, &done, &code)) return code;
      done.back().budget = "budget " + what + " = the spend of " + ref_id;
    }
  }
  const bool all = ready.size() == seeds.size();
  if (o.json_output && !o.wait) {
    json out = json::array();
    for (const auto& d : done) {
      out.push_back({{"arm", d.arm},
                     {"seed", d.seed},
                     {"campaign", d.campaign},
                     {"created", d.note == "submitted"},
                     {"submitted", d.campaign != "-"}});
      if (!d.budget.empty()) out.back()["budget"] = d.budget;
    }
    std::cout << Dump(json{{"experiment", e.id}, {"seeds", seeds}, {"campaigns", out}}, 2) << "\n";
  } else if (!o.json_output) {
    std::cout << "experiment " << e.id << ": " << e.arms.size() << " arms x " << seeds.size() << " seeds"
              << (e.learn_overlay ? ", each seed after its learn campaign" : "") << "\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& d : done) {
      rows.push_back({d.arm, std::to_string(d.seed), d.campaign, d.note + (d.budget.empty() ? "" : "; " + d.budget)});
    }
    PrintTable({"ARM", "SEED", "CAMPAIGN", ""}, rows);
  }
  if (!o.wait) return all ? kExitOk : kExitPartial;
  Options w = o;
  w.args = {"wait", e.id};
  const int waited = ExperimentWait(api, w);
  return waited != kExitOk ? waited : (all ? kExitOk : kExitPartial);
}

int Submit(ApiClient& api, const Options& o) {
  if (o.args.size() < 2) {
    std::cerr << "acceloptctl experiment submit: the experiment file is required\n";
    return kExitUsage;
  }
  auto e = ParseExperimentFile(o.env, o.args[1]);
  if (!e.ok()) {
    std::cerr << "acceloptctl experiment: " << e.status().message() << "\n";
    return kExitUsage;
  }
  return SubmitSeeds(api, o, *e, e->seeds);
}

// One more seed: one past the largest of the file's seeds and those the
// experiment's campaigns already have. Run by the nightly timer, so a night
// adds a seed and the intervals narrow over time.
int Extend(ApiClient& api, const Options& o) {
  if (o.args.size() < 2) {
    std::cerr << "acceloptctl experiment extend: the experiment file is required\n";
    return kExitUsage;
  }
  auto e = ParseExperimentFile(o.env, o.args[1]);
  if (!e.ok()) {
    std::cerr << "acceloptctl experiment: " << e.status().message() << "\n";
    return kExitUsage;
  }
  int code = kExitOk;
  auto cs = ExperimentCampaigns(api, e->id, &code);
  if (!cs) return code;
  int64_t next = *std::max_element(e->seeds.begin(), e->seeds.end()) + 1;
  for (const auto& c : *cs) next = std::max(next, c["experiment"].value("seed", int64_t{0}) + 1);
  std::cerr << "experiment " << e->id << ": adding seed " << next << " (" << cs->size() << " campaigns so far)\n";
  return SubmitSeeds(api, o, *e, {next});
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
    row.ended += CampaignEnded(c) ? 1 : 0;
    ++row.states[c.value("state", "")];
  }
  if (o.json_output) {
    json out = json::array();
    for (const auto& [id, row] : by_id) {
      out.push_back({{"id", id},
                     {"arms", row.arms},
                     {"seeds", row.seeds},
                     {"campaigns", row.campaigns},
                     {"ended", row.ended},
                     {"states", row.states}});
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
  auto cs = ExperimentCampaigns(api, id, &code, /*must_exist=*/true);
  if (!cs) return code;
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
  auto cs = ExperimentCampaigns(api, id, &code, /*must_exist=*/true);
  if (!cs) return code;
  int cancelled = 0;
  for (const auto& c : *cs) {
    if (CampaignEnded(c)) continue;
    auto r = Ask(api, "POST", "/v1/campaigns/" + c.value("id", "") + "/cancel");
    if (!r.ok()) return r.exit_code;
    ++cancelled;
  }
  std::cerr << "cancelled " << cancelled << " of " << cs->size() << " campaigns of experiment " << id << "\n";
  return kExitOk;
}

}  // namespace experiment_impl

int ExperimentWait(ApiClient& api, const Options& o) {
  const std::string& id = o.args.at(1);
  const auto start = std::chrono::steady_clock::now();
  size_t last_ended = SIZE_MAX;
  for (;;) {
    int code = kExitOk;
    auto cs = ExperimentCampaigns(api, id, &code, /*must_exist=*/true);
    if (!cs) return code;
    size_t ended = 0;
    bool failed = false;
    for (const auto& c : *cs) {
      if (!CampaignEnded(c)) continue;
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
        ExperimentReport(api, r, id);
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
      "acceloptctl experiment: one of submit EXP.json [--wait] [--dry-run], extend EXP.json [--wait] [--dry-run], "
      "list, get ID, wait ID, cancel ID, report ID [--against ARM] [--html FILE], remeasure ID [--against ARM]\n";
  if (o.args.empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  const std::string& sub = o.args[0];
  if (sub == "submit") return experiment_impl::Submit(api, o);
  if (sub == "extend") return experiment_impl::Extend(api, o);
  if (sub == "list") return experiment_impl::List(api, o);
  if (sub != "get" && sub != "wait" && sub != "cancel" && sub != "report" && sub != "remeasure") {
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
  if (sub == "remeasure") return ExperimentRemeasure(api, o, id);
  return ExperimentReport(api, o, id);
}

}  // namespace accelopt::cli
