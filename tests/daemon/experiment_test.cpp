// acceloptctl experiment (cli/experiment_commands.cpp): arms x seeds of
// tagged campaigns through the daemon, and the paired report with its
// intervals (workflows/experiment_stats.hpp).
#include <boost/test/unit_test.hpp>

#include <string>

#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;

BOOST_AUTO_TEST_CASE(an_experiment_of_two_arms_two_seeds_two_problems_runs_and_reports_intervals) {
  DaemonFixture f(StandardScript(2));
  f.StartDaemon();
  json exp = {{"id", "mem-ablation"},
              {"spec", SmallSpec({"matmul", "silu"}, 2, 1, 1, 1)},
              {"seeds", {1, 2}},
              {"arms", {{{"name", "memory-off"}, {"overlay", {{"memory", {{"scope", "none"}}}}}},
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
BOOST_AUTO_TEST_CASE(the_shipped_experiments_parse_into_arms_times_seeds) {
  DaemonFixture f(StandardScript(2));
  for (const char* name : {"memory-ablation", "search-vs-sampling"}) {
    BOOST_TEST_CONTEXT(name) {
      auto r = f.Ctl({"experiment", "submit", SourceDir() + "/config/experiments/" + name + ".json", "--dry-run",
                      "-o", "json"});
      BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      const json planned = r.Json().at("would_submit");
      BOOST_TEST(planned.size() == 10u);  // 2 arms x 5 seeds
      for (const auto& p : planned) {
        BOOST_TEST(p.at("spec").at("seed") == p.at("seed"));
        BOOST_TEST(p.at("spec").at("experiment").at("arm") == p.at("arm"));
        BOOST_TEST(p.at("spec").contains("problems"));
      }
    }
  }
}
