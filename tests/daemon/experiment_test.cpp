// acceloptctl experiment (cli/experiment_commands.cpp): arms x seeds of
// tagged campaigns through the daemon, and the paired report with its
// intervals (workflows/experiment_stats.hpp).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_CASE(an_experiment_of_two_arms_two_seeds_two_problems_runs_and_reports_intervals) {
  DaemonFixture f(StandardScript(2));
  f.StartDaemon();
  json exp = {{"id", "mem-ablation"},
              {"spec", SmallSpec({"matmul", "silu"}, 2, 1, 1, 1)},
              {"seeds", {1, 2}},
              {"arms",
               {{{"name", "memory-off"}, {"overlay", {{"memory", {{"scope", "none"}}}}}},
                {{"name", "memory-on"}, {"overlay", json::object()}}}}};
  const std::string file = WriteJson(f, "exp.json", exp);
  auto sub = f.Ctl({"experiment", "submit", file, "--wait", "-o", "json"}, 600);
  BOOST_TEST_MESSAGE(sub.err);
  BOOST_REQUIRE_EQUAL(sub.exit_code, 0);

  // Four tagged campaigns, each with the arm's overlay and its seed.
  auto got = f.Ctl({"experiment", "get", "mem-ablation", "-o", "json"});
  BOOST_REQUIRE_EQUAL(got.exit_code, 0);
  const json campaigns = got.Json().at("campaigns");
  BOOST_REQUIRE_EQUAL(campaigns.size(), 4u);
  int off = 0;
  for (const auto& c : campaigns) {
    BOOST_TEST(c.value("state", "") == "completed");
    auto one = f.Ctl({"get", c.value("id", ""), "-o", "json"});
    const json spec = one.Json().at("spec");
    BOOST_TEST(spec.at("seed") == c.at("experiment").at("seed"));
    BOOST_TEST(spec.at("experiment").at("arm") == c.at("experiment").at("arm"));
    if (c.at("experiment").at("arm") == "memory-off") {
      ++off;
      BOOST_TEST(spec.at("memory").at("scope") == "none");
    }
  }
  BOOST_TEST(off == 2);

  // Submitting the file again submits nothing new (idempotency keys).
  auto again = f.Ctl({"experiment", "submit", file, "-o", "json"});
  BOOST_REQUIRE_EQUAL(again.exit_code, 0);
  for (const auto& c : again.Json().at("campaigns")) BOOST_TEST(c.at("created") == false);
  auto list = f.Ctl({"experiment", "list", "-o", "json"});
  BOOST_TEST(list.Json().at("experiments").at(0).at("campaigns") == 4);
  BOOST_TEST(list.Json().at("experiments").at(0).at("ended") == 4);

  // The report: the arm submitted first is the reference; per metric the
  // pairs (2 problems x 2 seeds), an interval over the 2 seeds, a verdict.
  auto rep = f.Ctl({"experiment", "report", "mem-ablation", "-o", "json"});
  BOOST_REQUIRE_EQUAL(rep.exit_code, 0);
  const json r = rep.Json();
  BOOST_TEST(r.at("against") == "memory-off");
  BOOST_TEST(r.at("arms").size() == 2u);
  BOOST_REQUIRE(r.at("comparisons").size() == 2u);  // speedup and % of peak
  const json& c = r.at("comparisons").at(0);
  BOOST_TEST(c.at("arm_b") == "memory-on");
  BOOST_TEST(c.at("pairs").size() == 4u);
  BOOST_TEST(c.at("seeds") == 2);
  BOOST_TEST(c.at("resolved") == true);
  BOOST_TEST(c.at("percent_lo").get<double>() <= c.at("percent").get<double>());
  BOOST_TEST(c.at("percent").get<double>() <= c.at("percent_hi").get<double>());
  BOOST_TEST(c.at("verdict").get<std::string>().find("memory-on vs memory-off") == 0u);
  auto text = f.Ctl({"experiment", "report", "mem-ablation"});
  BOOST_TEST_MESSAGE(text.out);
  const bool verdict_shown =
      text.out.find("over 2 seeds") != std::string::npos || text.out.find("at 2 seeds") != std::string::npos;
  BOOST_TEST(verdict_shown, text.out);

  // The winners side by side: per (problem, seed) one judge run times both
  // arms' best kernels interleaved; the ratios are paired over the seeds.
  auto side = f.Ctl({"experiment", "remeasure", "mem-ablation", "-o", "json"}, 600);
  BOOST_REQUIRE_MESSAGE(side.exit_code == 0, side.err);
  const json s = side.Json();
  BOOST_TEST(s.at("against") == "memory-off");
  BOOST_REQUIRE_EQUAL(s.at("measurements").size(), 4u);  // 2 problems x 2 seeds
  for (const auto& m : s.at("measurements")) {
    BOOST_TEST_CONTEXT(m.dump()) {
      BOOST_TEST(m.at("correct") == true);
      BOOST_TEST(m.at("ratio").get<double>() > 0);
      BOOST_TEST(m.at("ratio_low").get<double>() <= m.at("ratio").get<double>());
      BOOST_TEST(m.at("ratio").get<double>() <= m.at("ratio_high").get<double>());
    }
  }
  BOOST_REQUIRE_EQUAL(s.at("comparisons").size(), 1u);
  BOOST_TEST(s.at("comparisons").at(0).at("seeds") == 2);
  BOOST_TEST(s.at("comparisons").at(0).at("per_problem").size() == 2u);
  BOOST_TEST(s.at("comparisons").at(0).at("verdict").get<std::string>().find("winners side by side") !=
             std::string::npos);
  // The endpoint refuses what it cannot measure, naming the field.
  auto [st1, b1] = f.Http("POST", "/v1/remeasure", json{{"problem", "suites/test/silu"}, {"source", "x"}}.dump());
  BOOST_TEST(st1 == 400);
  BOOST_TEST(b1.find("compare_source") != std::string::npos, b1);
  auto [st2, b2] = f.Http("POST", "/v1/remeasure",
                          json{{"problem", "suites/test/nope"}, {"source", "x"}, {"compare_source", "y"}}.dump());
  BOOST_TEST(st2 == 404, b2);

  // Bad input says what is wrong.
  json one_arm = exp;
  one_arm["arms"] = json::array({exp["arms"][0]});
  auto bad = f.Ctl({"experiment", "submit", WriteJson(f, "bad.json", one_arm)});
  BOOST_TEST(bad.exit_code == 2);
  BOOST_TEST(bad.err.find("at least two arms") != std::string::npos, bad.err);
  BOOST_TEST(f.Ctl({"experiment", "report", "nope"}).exit_code == 4);
}

// The experiments shipped in config/experiments parse (their spec_file
// found relative to them) into arms x seeds of tagged campaign specs;
// --dry-run sends nothing, so no daemon runs here.
// Equal spend (issue 37): the sampling arm of a seed is submitted after the
// search arm's campaign of that seed ended, with exactly its spend as the
// budget and no call cap, and the submit output says so.
BOOST_AUTO_TEST_CASE(an_equal_spend_arm_gets_exactly_the_spend_of_its_reference_arm_per_seed) {
  DaemonFixture f(StandardScript(2));
  f.StartDaemon();
  // Short replies (max_tokens 64): a call's worst-case reservation must fit
  // in the search arm's spend, or the sampling arm is refused at submit
  // ("the budget is spent before anything runs").
  json spec = SmallSpec({"silu"}, 2, 1, 2, 1);
  for (const char* role : {"planner", "executor", "summarizer"}) spec["roles"][role] = {{"max_tokens", 64}};
  json exp = {{"id", "equal-spend"},
              {"spec", spec},
              {"seeds", {1, 2}},
              {"arms",
               {{{"name", "search"}, {"overlay", json::object()}},
                {{"name", "sampling"},
                 {"spend_of", "search"},
                 {"overlay",
                  {{"mode", "sampling"},
                   {"search", {{"T", 2}, {"B", 1}}},
                   {"memory", {{"scope", "none"}}},
                   {"budget", {{"max_cost_usd", 5.0}, {"max_llm_calls", 3}}}}}}}}};
  const std::string file = WriteJson(f, "equal.json", exp);
  // Without --wait it still waits for each search campaign before its
  // sampling one; then the experiment is waited for.
  auto sub = f.Ctl({"experiment", "submit", file, "-o", "json"}, 600);
  BOOST_TEST_MESSAGE(sub.err);
  BOOST_REQUIRE_EQUAL(sub.exit_code, 0);
  // The sampling arm may end on its budget: not a zero exit.
  auto waited = f.Ctl({"experiment", "wait", "equal-spend"}, 600);
  BOOST_TEST_MESSAGE(waited.err);
  auto got = f.Ctl({"experiment", "get", "equal-spend", "-o", "json"});
  BOOST_REQUIRE_EQUAL(got.exit_code, 0);
  std::map<int64_t, json> search_spend, sampling_budget;
  const json listed = got.Json();
  for (const auto& c : listed.at("campaigns")) {
    const int64_t seed = c.at("experiment").at("seed").get<int64_t>();
    const std::string state = c.value("state", "");
    // The sampling arm ends on its budget, exactly the search arm's spend.
    BOOST_TEST((state == "completed" || state == "budget_exhausted"), c.value("id", "") << " ended " << state);
    if (c.at("experiment").at("arm") == "search")
      search_spend[seed] = c.at("spend");
    else
      sampling_budget[seed] = c.at("budget");
  }
  BOOST_REQUIRE_EQUAL(search_spend.size(), 2u);
  BOOST_REQUIRE_EQUAL(sampling_budget.size(), 2u);
  for (const auto& [seed, spend] : search_spend) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      const json& b = sampling_budget.at(seed);
      BOOST_TEST(spend.at("cost_usd").get<double>() > 0);  // the fake model is priced
      BOOST_TEST(b.at("max_cost_usd").get<double>() == spend.at("cost_usd").get<double>());
      BOOST_TEST(b.at("max_llm_calls").get<int64_t>() == 1000000);  // the overlay's 3 lifted
    }
  }
  bool said = false;
  for (const auto& c : sub.Json().value("campaigns", json::array())) {
    if (c.value("arm", "") == "sampling")
      said = said || c.value("budget", "").find("the spend of") != std::string::npos;
  }
  BOOST_TEST(said);
  // A spend_of that names no earlier arm is refused with the field.
  json bad = exp;
  bad["id"] = "bad-spend";
  bad["arms"][1]["spend_of"] = "nope";
  auto refused = f.Ctl({"experiment", "submit", WriteJson(f, "bad.json", bad), "--dry-run"});
  BOOST_TEST(refused.exit_code != 0);
  BOOST_TEST(refused.err.find("spend_of") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_shipped_experiments_parse_into_arms_times_seeds) {
  DaemonFixture f(StandardScript(2));
  for (const char* name : {"memory-ablation", "search-vs-sampling", "transfer"}) {
    BOOST_TEST_CONTEXT(name) {
      auto r = f.Ctl(
          {"experiment", "submit", SourceDir() + "/config/experiments/" + name + ".json", "--dry-run", "-o", "json"});
      BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      const json planned = r.Json().at("would_submit");
      // 2 arms x 5 seeds (+ a learn campaign per seed for transfer)
      BOOST_TEST(planned.size() == (std::string(name) == "transfer" ? 15u : 10u));
      for (const auto& p : planned) {
        BOOST_TEST(p.at("spec").at("seed") == p.at("seed"));
        BOOST_TEST(p.at("spec").at("experiment").at("arm") == p.at("arm"));
        BOOST_TEST(p.at("spec").contains("problems"));
      }
    }
  }
}

namespace {

// The part of `dom` from the first match of `start` to the next "</svg>".
std::string SvgFrom(const std::string& dom, const std::string& start) {
  const size_t a = dom.find(start);
  if (a == std::string::npos) return "";
  const size_t b = dom.find("</svg>", a);
  return dom.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

// Cross-kernel transfer through the daemon: per seed a learn campaign fills
// a bank of its own (transfer-{seed}), then the arms run on another kernel,
// one with that bank frozen; the report says per target problem what the
// transfer did; its HTML page, rendered in Chromium, carries the report's
// pairs and cost curves; extend adds the next seed, learning first.
BOOST_AUTO_TEST_CASE(a_transfer_experiment_learns_first_applies_the_bank_frozen_and_extends_by_a_seed) {
  const std::string chromium = FindChromium();
  DaemonFixture f(StandardScript(2));
  f.StartDaemon();
  json exp = {
      {"id", "xfer"},
      {"spec", SmallSpec({"matmul", "silu"}, 2, 1, 1, 1)},
      {"seeds", {1, 2}},
      {"learn", {{"overlay", {{"problems", {"matmul"}}, {"memory", {{"scope", "bank"}, {"bank", "xfer-{seed}"}}}}}}},
      {"arms",
       {{{"name", "memory-off"}, {"overlay", {{"problems", {"silu"}}, {"memory", {{"scope", "none"}}}}}},
        {{"name", "transferred"},
         {"overlay",
          {{"problems", {"silu"}}, {"memory", {{"scope", "bank"}, {"bank", "xfer-{seed}"}, {"frozen", true}}}}}}}}};
  const std::string file = WriteJson(f, "xfer.json", exp);
  auto sub = f.Ctl({"experiment", "submit", file, "--wait", "-o", "json"}, 600);
  BOOST_TEST_MESSAGE(sub.err);
  BOOST_REQUIRE_EQUAL(sub.exit_code, 0);
  BOOST_TEST(sub.err.find("learn campaign(s) to complete") != std::string::npos, sub.err);

  const json campaigns = f.Ctl({"experiment", "get", "xfer", "-o", "json"}).Json().at("campaigns");
  BOOST_REQUIRE_EQUAL(campaigns.size(), 6u);  // 2 learn + 2 arms x 2 seeds
  std::map<int64_t, json> learn;
  for (const auto& c : campaigns) {
    if (c.at("experiment").at("arm") == "learn") learn[c.at("experiment").at("seed").get<int64_t>()] = c;
  }
  BOOST_REQUIRE_EQUAL(learn.size(), 2u);
  for (const auto& c : campaigns) {
    BOOST_TEST(c.value("state", "") == "completed");
    const int64_t seed = c.at("experiment").at("seed");
    const std::string arm = c.at("experiment").at("arm");
    const json spec = f.Ctl({"get", c.value("id", ""), "-o", "json"}).Json().at("spec");
    BOOST_TEST_CONTEXT(arm << " seed " << seed) {
      if (arm == "memory-off") {
        BOOST_TEST(spec.at("memory").at("scope") == "none");
        continue;
      }
      BOOST_TEST(spec.at("memory").at("bank") == "xfer-" + std::to_string(seed));  // {seed} substituted
      if (arm == "learn") {
        BOOST_REQUIRE_EQUAL(spec.at("problems").size(), 1u);
        BOOST_TEST(spec.at("problems").at(0).get<std::string>().find("matmul") != std::string::npos);
        continue;
      }
      BOOST_TEST(spec.at("memory").at("frozen") == true);
      // Submitted after its seed's learning had ended (its last event).
      auto learned = f.Ctl({"events", learn[seed].value("id", ""), "-o", "json"});
      const std::string last = learned.out.substr(learned.out.rfind('\n', learned.out.size() - 2) + 1);
      BOOST_TEST(c.at("started_at_us").get<int64_t>() >= json::parse(last).at("recorded_at_us").get<int64_t>());
      // Reads the bank, writes nothing: every item in it came from the learn
      // campaign, and the bank is at the version its last snapshot read.
      uint64_t snapshot_version = 0;
      int snapshots = 0;
      auto events = f.Ctl({"events", c.value("id", ""), "-o", "json"});
      std::istringstream lines(events.out);
      for (std::string line; std::getline(lines, line);) {
        const json e = json::parse(line);
        if (e.at("type") == "MemorySnapshotTaken") {
          ++snapshots;
          snapshot_version = std::max(snapshot_version, e.at("data").at("bank_version").get<uint64_t>());
        }
      }
      BOOST_TEST(snapshots >= 2);
      const json bank = f.Ctl({"memory", "show", "xfer-" + std::to_string(seed), "-o", "json"}).Json();
      BOOST_TEST(bank.at("version").get<uint64_t>() == snapshot_version);
      for (const auto& item : bank.at("items")) BOOST_TEST(item.at("campaign") == learn[seed].at("id"));
    }
  }

  // The report: the learn campaigns are listed, not compared; per target
  // problem an outcome; a cost curve per compared campaign.
  const json r = f.Ctl({"experiment", "report", "xfer", "-o", "json"}).Json();
  BOOST_TEST(r.at("against") == "memory-off");
  BOOST_TEST(r.at("learn").size() == 2u);
  BOOST_TEST(r.at("arms").size() == 2u);
  BOOST_REQUIRE_EQUAL(r.at("comparisons").size(), 2u);
  for (const auto& c : r.at("comparisons")) {
    BOOST_REQUIRE_EQUAL(c.at("per_problem").size(), 1u);
    const std::string outcome = c.at("per_problem").at(0).at("outcome");
    BOOST_TEST((outcome == "helped" || outcome == "hurt" || outcome == "unresolved"), outcome);
    BOOST_TEST(c.at("per_problem").at(0).at("problem") == "suites/test/silu");
  }
  BOOST_REQUIRE_EQUAL(r.at("cost_curves").size(), 4u);
  auto text = f.Ctl({"experiment", "report", "xfer"});
  BOOST_TEST(text.out.find("per problem: suites/test/silu ") != std::string::npos, text.out);
  BOOST_TEST(text.out.find("+ 2 learn campaigns") != std::string::npos, text.out);

  // The HTML page, as Chromium renders it, carries the report's numbers.
  const std::string html = f.dir + "/xfer.html";
  auto w = f.Ctl({"experiment", "report", "xfer", "--html", html});
  BOOST_REQUIRE_MESSAGE(w.exit_code == 0, w.err);
  const std::string page = ReadAll(html);
  BOOST_TEST(page.find("<script") == std::string::npos);
  BOOST_TEST(page.find("http://") == std::string::npos);
  const std::string png = std::string(ACCELOPT_BINARY_DIR) + "/tests/daemon/experiment_html.png";
  fs::remove(png);
  RunChromium(chromium, f.dir, "--screenshot=" + png, "file://" + html);
  BOOST_TEST(ReadAll(png).size() > 20000u);
  const std::string dom = RunChromium(chromium, f.dir, "--dump-dom", "file://" + html);
  BOOST_REQUIRE_MESSAGE(dom.find("data-experiment=\"xfer\"") != std::string::npos, dom.substr(0, 2000));
  BOOST_TEST(Count(dom, "<li data-arm=") == r.at("comparisons").size());
  for (const auto& c : r.at("comparisons"))
    BOOST_TEST(dom.find(c.at("verdict").get<std::string>()) != std::string::npos);
  const json& sp = r.at("comparisons").at(0);
  BOOST_REQUIRE(sp.at("metric") == "speedup");
  const std::string paired = SvgFrom(dom, "data-problem=\"suites/test/silu\" data-arm=\"transferred\" role=\"img\"");
  BOOST_REQUIRE(!paired.empty());
  for (const auto& p : sp.at("pairs")) {
    const std::string seed = std::to_string(p.at("seed").get<int64_t>());
    for (const auto& [arm, key] : {std::pair<std::string, std::string>{"memory-off", "a"}, {"transferred", "b"}}) {
      const std::string attr = "data-seed=\"" + seed + "\" data-arm=\"" + arm + "\" data-value=\"";
      const size_t at = paired.find(attr);
      BOOST_REQUIRE_MESSAGE(at != std::string::npos, "no paired point " << attr);
      const size_t v = at + attr.size();
      BOOST_TEST(json::parse(paired.substr(v, paired.find('"', v) - v)).get<double>() == p.at(key).get<double>());
    }
  }
  size_t curve_points = 0;
  for (const auto& cv : r.at("cost_curves")) curve_points += cv.at("points").size();
  BOOST_TEST(Count(SvgFrom(dom, "<svg class=\"chart cost\""), "data-cost=") == curve_points);

  // extend: the next seed (3), its learning first, then its arms.
  auto plan = f.Ctl({"experiment", "extend", file, "--dry-run", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
  BOOST_REQUIRE_EQUAL(plan.Json().at("would_submit").size(), 3u);
  for (const auto& p : plan.Json().at("would_submit")) BOOST_TEST(p.at("seed") == 3);
  BOOST_TEST(plan.Json().at("would_submit").at(0).at("arm") == "learn");
  auto ext = f.Ctl({"experiment", "extend", file, "--wait", "-o", "json"}, 600);
  BOOST_REQUIRE_MESSAGE(ext.exit_code == 0, ext.err);
  BOOST_TEST(ext.err.find("adding seed 3") != std::string::npos, ext.err);
  const json after = f.Ctl({"experiment", "report", "xfer", "-o", "json"}).Json();
  BOOST_TEST(after.at("learn").size() == 3u);
  BOOST_TEST(after.at("comparisons").at(0).at("seeds") == 3);

  // A reserved or misplaced name says what is wrong.
  json bad = exp;
  bad["arms"][0]["name"] = "learn";
  auto refused = f.Ctl({"experiment", "submit", WriteJson(f, "bad.json", bad)});
  BOOST_TEST(refused.exit_code == 2);
  BOOST_TEST(refused.err.find("reserved") != std::string::npos, refused.err);
  BOOST_TEST(f.StopDaemon() == 0);
}
