// Experiment statistics on synthetic campaigns whose true effect is known:
// a planted effect is detected, no effect is covered at the stated rate,
// the t quantiles are right, and the cost curve follows the event timeline.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "workflows/experiment_html.hpp"
#include "workflows/experiment_stats.hpp"
#include "workflows/rng.hpp"
#include "test_util.hpp"

namespace accelopt::workflows {
namespace {

// A standard normal draw (Box-Muller) from the deterministic Rng.
double Normal(Rng& rng) {
  const double u1 = (static_cast<double>(rng.NextU64() >> 11) + 0.5) / 9007199254740992.0;
  const double u2 = (static_cast<double>(rng.NextU64() >> 11) + 0.5) / 9007199254740992.0;
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

// Arms "off" and "on" over `problems` x `seeds`: per problem a true speedup,
// per (problem, seed) a shared seed effect plus arm noise (sd `noise` in
// log units); "on" is `effect` times faster.
std::vector<ArmRun> Synthetic(uint64_t rep, int problems, int seeds, double effect, double noise) {
  Rng rng(rep, "synthetic");
  std::vector<ArmRun> runs;
  for (int p = 0; p < problems; ++p) {
    const double base = 1.5 + p;  // the problem's true speedup without memory
    for (int s = 0; s < seeds; ++s) {
      const double shared = 0.2 * Normal(rng);  // what the seed does to both arms
      for (const char* arm : {"off", "on"}) {
        ArmRun r;
        r.arm = arm;
        r.problem = "p" + std::to_string(p);
        r.seed = s;
        const double log_s =
            std::log(base) + shared + noise * Normal(rng) + (std::string(arm) == "on" ? std::log(effect) : 0.0);
        r.speedup = std::exp(log_s);
        r.percent_of_peak = 5 * r.speedup;
        r.cost_usd = std::string(arm) == "on" ? 2.0 : 1.5;
        runs.push_back(r);
      }
    }
  }
  return runs;
}

BOOST_AUTO_TEST_CASE(student_t_quantiles_match_the_tables) {
  BOOST_TEST(StudentTQuantile(0.975, 1) == 12.706, boost::test_tools::tolerance(1e-3));
  BOOST_TEST(StudentTQuantile(0.975, 4) == 2.776, boost::test_tools::tolerance(1e-3));
  BOOST_TEST(StudentTQuantile(0.975, 30) == 2.042, boost::test_tools::tolerance(1e-3));
  BOOST_TEST(StudentTQuantile(0.8, 9) == 0.883, boost::test_tools::tolerance(1e-3));
  BOOST_TEST(std::fabs(StudentTQuantile(0.5, 7)) < 1e-6);
}

// A 10% effect with 5% per-run noise: 5 seeds on 3 problems resolve it, the
// interval excludes 0 and holds the truth; the verdict says so.
BOOST_AUTO_TEST_CASE(a_planted_ten_percent_effect_is_detected_at_five_seeds) {
  const auto runs = Synthetic(42, 3, 5, 1.10, 0.05);
  IntervalOptions o;
  const Comparison c = Compare(runs, "off", "on", Metric::kSpeedup, o);
  BOOST_TEST(c.seeds == 5);
  BOOST_TEST(c.problems == 3);
  BOOST_TEST(c.pairs.size() == 15u);
  BOOST_TEST(c.interval.method == "t");
  BOOST_TEST(c.excludes_zero());
  BOOST_TEST(c.percent_lo > 0);
  BOOST_TEST((c.percent_lo < 10 && 10 < c.percent_hi));
  BOOST_TEST(c.resolvable_percent > 0);
  BOOST_TEST(c.resolvable_percent < 10);  // 5 seeds are enough for 10% here
  const std::string v = Verdict("memory on vs off", c);
  BOOST_TEST_MESSAGE(v);
  BOOST_TEST(v.rfind("memory on vs off: geomean +", 0) == 0);
  BOOST_TEST(v.find("over 5 seeds on 3 problems") != std::string::npos);
  // The same on % of peak (5 x speedup: the same ratios).
  const Comparison pct = Compare(runs, "off", "on", Metric::kPercentOfPeak, o);
  BOOST_TEST(pct.percent == c.percent, boost::test_tools::tolerance(1e-9));
  // Deterministic bootstrap: the same numbers twice, and close to t here.
  o.method = IntervalMethod::kBootstrap;
  const Comparison b1 = Compare(runs, "off", "on", Metric::kSpeedup, o);
  const Comparison b2 = Compare(runs, "off", "on", Metric::kSpeedup, o);
  BOOST_TEST(b1.interval.method == "bootstrap");
  BOOST_TEST(b1.interval.lo == b2.interval.lo);
  BOOST_TEST(b1.interval.hi == b2.interval.hi);
  BOOST_TEST(b1.excludes_zero());
  // Two seeds with this noise: not resolved, and said so.
  const Comparison few = Compare(Synthetic(42, 3, 1, 1.10, 0.05), "off", "on", Metric::kSpeedup, {});
  BOOST_TEST(!few.interval.resolved);
  BOOST_TEST(Verdict("memory on vs off", few).find("not resolved at 1 seed") != std::string::npos);
}

// No effect: the 95% interval covers 0 in about 95% of 200 repetitions
// (binomial sd ~1.5%, so 90-99% cannot fail by chance at these fixed seeds
// unless the interval is wrong), for t at 5 seeds and bootstrap at 30.
BOOST_AUTO_TEST_CASE(with_no_effect_the_interval_covers_zero_at_its_rate) {
  for (const auto& [seeds, method] : {std::pair{5, IntervalMethod::kStudentT}, {30, IntervalMethod::kBootstrap}}) {
    IntervalOptions o;
    o.method = method;
    o.resamples = 1000;
    int covered = 0, false_verdicts = 0;
    for (uint64_t rep = 0; rep < 200; ++rep) {
      o.seed = rep + 1;
      const Comparison c = Compare(Synthetic(1000 + rep, 3, seeds, 1.0, 0.05), "off", "on", Metric::kSpeedup, o);
      BOOST_REQUIRE(c.interval.resolved);
      if (c.interval.lo <= 0 && 0 <= c.interval.hi) ++covered;
      if (Verdict("q", c).find("not resolved") == std::string::npos) ++false_verdicts;
    }
    BOOST_TEST_MESSAGE("seeds " << seeds << ": covered " << covered << " of 200");
    BOOST_TEST(covered >= 180);
    BOOST_TEST(covered <= 198);
    BOOST_TEST(false_verdicts == 200 - covered);
  }
}

// Transfer, per target problem: a planted +20% on one problem, -20% on
// another (negative transfer) and nothing on a third, 8 seeds at 5% noise:
// helped, hurt and unresolved.
BOOST_AUTO_TEST_CASE(per_problem_outcomes_tell_help_from_harm_and_from_noise) {
  Rng rng(7, "transfer");
  const double effect[] = {1.2, 1 / 1.2, 1.0};
  std::vector<ArmRun> runs;
  for (int p = 0; p < 3; ++p) {
    for (int s = 0; s < 8; ++s) {
      const double shared = 0.2 * Normal(rng);
      for (const char* arm : {"none", "transferred"}) {
        ArmRun r;
        r.arm = arm;
        r.problem = "t" + std::to_string(p);
        r.seed = s;
        const bool b = std::string(arm) == "transferred";
        r.speedup = std::exp(std::log(2.0) + shared + 0.05 * Normal(rng) + (b ? std::log(effect[p]) : 0.0));
        r.percent_of_peak = 4 * r.speedup;
        runs.push_back(r);
      }
    }
  }
  const auto out = PerProblem(runs, "none", "transferred", Metric::kSpeedup, IntervalOptions{});
  BOOST_REQUIRE_EQUAL(out.size(), 3u);
  BOOST_TEST(out[0].problem == "t0");
  BOOST_TEST(out[0].outcome == "helped");
  BOOST_TEST(out[0].comparison.percent == 20.0, boost::test_tools::tolerance(0.25));
  BOOST_TEST(out[1].outcome == "hurt");
  BOOST_TEST(out[1].comparison.percent_hi < 0);
  BOOST_TEST(out[2].outcome == "unresolved");
  BOOST_TEST(out[2].comparison.seeds == 8);
  BOOST_TEST(out[2].comparison.problems == 1);
  // One seed resolves nothing.
  std::vector<ArmRun> one;
  for (const ArmRun& r : runs) {
    if (r.seed == 0) one.push_back(r);
  }
  for (const auto& po : PerProblem(one, "none", "transferred", Metric::kSpeedup, IntervalOptions{})) {
    BOOST_TEST(po.outcome == "unresolved");
  }
}

BOOST_AUTO_TEST_CASE(seeds_needed_follow_the_spread) {
  // sd 0.05: 10% (ln 1.1 = 0.095) needs a handful of seeds; 2% many more.
  const int n10 = SeedsNeeded(std::log(1.10), 0.05);
  const int n2 = SeedsNeeded(std::log(1.02), 0.05);
  BOOST_TEST(n10 >= 3);
  BOOST_TEST(n10 <= 6);
  BOOST_TEST(n2 > 5 * n10);
  BOOST_TEST(ResolvableLogEffect(n10, 0.05) <= std::log(1.10));
  BOOST_TEST(ResolvableLogEffect(n10 - 1, 0.05) > std::log(1.10));
  BOOST_TEST(SeedsNeeded(std::log(1.001), 1.0, 50) == 0);  // not within 50 seeds
}

BOOST_AUTO_TEST_CASE(summaries_count_cost_and_missing_results) {
  auto runs = Synthetic(7, 2, 3, 1.2, 0.01);
  runs[0].speedup = 0;  // one campaign found nothing (failed baseline...)
  const auto s = Summaries(runs);
  BOOST_REQUIRE_EQUAL(s.size(), 2u);
  BOOST_TEST(s[0].arm == "off");
  BOOST_TEST(s[0].runs == 6);
  BOOST_TEST(s[0].runs_without_result == 1);
  BOOST_TEST(s[0].seeds == 3);
  BOOST_TEST(s[0].cost_usd == 9.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(s[1].cost_per_seed_usd == 4.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(s[1].geomean_speedup > s[0].geomean_speedup);
  // The pair with no result is left out of the comparison.
  BOOST_TEST(Compare(runs, "off", "on", Metric::kSpeedup, {}).pairs.size() == 5u);
}

Event Scheduled(const std::string& id, int problem) {
  return {event_type::kActivityScheduled, {{"activity_id", id}, {"kind", "evaluation"}, {"problem", problem}}};
}
Event Evaluated(const std::string& id, double pct, bool correct = true) {
  return {event_type::kEvaluationCompleted,
          {{"activity_id", id}, {"result", {{"status", "ok"}, {"correct", correct}, {"percent_of_peak", pct}}}}};
}
Event Llm(double cost) { return {event_type::kLlmCallCompleted, {{"activity_id", "x"}, {"cost_usd", cost}}}; }

BOOST_AUTO_TEST_CASE(cost_curve_follows_the_timeline) {
  std::vector<Event> ev = {Scheduled("b0", 0), Scheduled("b1", 1), Evaluated("b0", 4),
                           Evaluated("b1", 9),  // both baselines: geomean 6 at $0
                           Llm(0.5),           Scheduled("e0", 0), Evaluated("e0", 16),        // p0 4 -> 16: 12 at $0.5
                           Llm(0.25),          Scheduled("e1", 1), Evaluated("e1", 1, false),  // wrong: no change
                           Scheduled("e2", 1), Evaluated("e2", 3)};  // slower than 9: no change
  const auto curve = CostEfficiencyCurve(ev);
  BOOST_REQUIRE_EQUAL(curve.size(), 3u);
  BOOST_TEST(curve[0].cost_usd == 0.0);
  BOOST_TEST(curve[0].best_percent_of_peak == 6.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(curve[1].cost_usd == 0.5);
  BOOST_TEST(curve[1].best_percent_of_peak == 12.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(curve[2].cost_usd == 0.75);
  BOOST_TEST(curve[2].best_percent_of_peak == 12.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(BestAtCost(curve, 0.4) == 6.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(BestAtCost(curve, 10) == 12.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(BestAtCost(curve, -1) == 0.0);
}

Event ZeroPricedLlm(int64_t in, int64_t out) {
  return {event_type::kLlmCallCompleted,
          {{"activity_id", "x"},
           {"cost_usd", 0.0},
           {"cost_source", "zero_price"},
           {"usage", {{"input_tokens", in}, {"output_tokens", out}}}}};
}

// A local model priced at $0: the curve still moves, by the tokens spent,
// and the HTML chart is drawn against tokens (saying why) instead of a flat $0.
BOOST_AUTO_TEST_CASE(a_zero_priced_campaigns_curve_is_against_tokens) {
  std::vector<Event> ev = {
      Scheduled("b0", 0),
      Evaluated("b0", 4),
      ZeroPricedLlm(100, 20),
      Scheduled("e0", 0),
      Evaluated("e0", 8),
      ZeroPricedLlm(300, 80),
      {event_type::kLlmCallFailed, {{"activity_id", "y"}, {"cost_usd", 0.0}, {"cost_source", "none"}}}};
  const auto curve = CostEfficiencyCurve(ev);
  BOOST_REQUIRE_EQUAL(curve.size(), 3u);  // $0 throughout: the tokens make the steps
  BOOST_TEST(curve[0].tokens == 0);
  BOOST_TEST(curve[1].tokens == 120);
  BOOST_TEST(curve[1].best_percent_of_peak == 8.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(curve[2].tokens == 500);
  for (const auto& p : curve) BOOST_TEST(p.cost_usd == 0.0);
  BOOST_TEST(AllZeroPriced(ev));
  BOOST_TEST(!AllZeroPriced({Llm(0.5)}));  // no cost_source: not known to be free
  std::vector<Event> mixed = ev;
  mixed.push_back({event_type::kLlmCallCompleted, {{"activity_id", "z"}, {"cost_usd", 0.1}, {"cost_source", "usage"}}});
  BOOST_TEST(!AllZeroPriced(mixed));

  json points = json::array();
  for (const auto& p : curve) points.push_back({p.cost_usd, p.best_percent_of_peak, p.tokens});
  json report = {
      {"experiment", "x"},
      {"arms", json::array({{{"arm", "on"}}})},
      {"cost_curves", json::array({{{"arm", "on"}, {"seed", 1}, {"points", points}, {"zero_price", true}}})}};
  const std::string tokens_html = RenderExperimentHtml(report);
  BOOST_TEST(testing::Mentions(tokens_html, "best % of peak against tokens spent"));
  BOOST_TEST(testing::Mentions(tokens_html, "every call $0: zero_price"));
  BOOST_TEST(testing::Mentions(tokens_html, "at 500 tokens"));
  report["cost_curves"][0]["zero_price"] = false;
  const std::string dollars_html = RenderExperimentHtml(report);
  BOOST_TEST(testing::Mentions(dollars_html, "best % of peak against dollars spent"));
  BOOST_TEST(!testing::Mentions(dollars_html, "tokens spent"));
}

}  // namespace
}  // namespace accelopt::workflows
