#include <boost/test/unit_test.hpp>

#include "evaluators/protocol.hpp"
#include "evaluators/stats.hpp"

using namespace accelopt;
using namespace accelopt::eval;

BOOST_AUTO_TEST_SUITE(protocol)

BOOST_AUTO_TEST_CASE(request_round_trip_keeps_every_setting) {
  auto j = ParseJson(R"({"backend": "cpu", "problem": "suites/cpu/silu", "source": "int x;",
    "settings": {"timeout_s": 5, "seeds": [1, 2], "min_time_s": 0.05, "threads": 1,
                 "baseline_latency_us": 120.5, "static_checks": false}})");
  BOOST_REQUIRE(j.ok());
  auto r = EvalRequest::FromJson(*j);
  BOOST_REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  BOOST_TEST(r->settings.timeout_s == 5);
  BOOST_TEST(r->settings.seeds.size() == 2u);
  BOOST_TEST(*r->settings.baseline_latency_us == 120.5);
  BOOST_TEST(!r->settings.static_checks);
  BOOST_TEST(r->settings.max_rounds == 5);  // defaults kept
  BOOST_TEST(r->settings.min_rounds == 3);
  auto again = EvalRequest::FromJson(r->ToJson());
  BOOST_REQUIRE(again.ok());
  BOOST_TEST(Dump(again->ToJson()) == Dump(r->ToJson()));
}

BOOST_AUTO_TEST_CASE(errors_name_the_field) {
  auto bad = [](const char* text) {
    auto j = ParseJson(text);
    BOOST_REQUIRE(j.ok());
    auto r = EvalRequest::FromJson(*j);
    BOOST_REQUIRE(!r.ok());
    return r.status().message();
  };
  BOOST_TEST(bad(R"({"backend": "cpu", "problem": "p", "source": "s", "settings": {"min_time": 1}})")
                 .find("settings.min_time") != std::string::npos);
  BOOST_TEST(bad(R"({"backend": "cpu", "problem": "p", "source": "s", "settings": {"timeout_s": -1}})")
                 .find("settings.timeout_s") != std::string::npos);
  BOOST_TEST(bad(R"({"backend": "cpu", "problem": "p"})").find("source") != std::string::npos);
  BOOST_TEST(
      bad(R"({"backend": "cpu", "problem": "p", "source": "s", "settings": {"seeds": []}})").find("settings.seeds") !=
      std::string::npos);
}

BOOST_AUTO_TEST_CASE(result_round_trip_and_status_names) {
  EvalResult r;
  r.status = EvalStatus::kSuspicious;
  r.compiled = r.correct = true;
  r.reason = "too fast";
  r.error_text = std::string("bad utf8 \xff\xfe here");
  LatencyStats l;
  l.median_us = 10;
  l.min_us = 9;
  l.mean_us = 11;
  l.spread = 0.02;
  l.rounds = 2;
  l.samples_us = {9, 10, 14};
  r.latency = l;
  r.profile["achieved_gflops"] = 3.5;
  r.percent_of_peak = 120;
  r.peak_latency_us = 12;
  std::string text = Dump(r.ToJson());  // must not throw on the bad bytes
  auto parsed = ParseJson(text);
  BOOST_REQUIRE(parsed.ok());
  auto back = EvalResult::FromJson(*parsed);
  BOOST_REQUIRE_MESSAGE(back.ok(), back.status().ToString());
  BOOST_TEST(EvalStatusName(back->status) == std::string("suspicious"));
  BOOST_TEST(back->latency->samples_us.size() == 3u);
  BOOST_TEST(back->profile.at("achieved_gflops") == 3.5);
  BOOST_TEST(*back->percent_of_peak == 120);
  BOOST_TEST(!back->max_rel_error.has_value());
  for (int i = 0; i <= static_cast<int>(EvalStatus::kCancelled); ++i) {
    auto s = static_cast<EvalStatus>(i);
    BOOST_TEST((*ParseEvalStatus(EvalStatusName(s)) == s));
  }
  BOOST_TEST(!ParseEvalStatus("fine").ok());
}

BOOST_AUTO_TEST_CASE(error_text_is_truncated_keeping_head_and_tail) {
  std::string text = "HEAD" + std::string(100000, 'x') + "TAIL";
  std::string t = TruncateErrorText(text, 1000);
  BOOST_TEST(t.size() < 1100u);
  BOOST_TEST(t.rfind("HEAD", 0) == 0u);
  BOOST_TEST(t.substr(t.size() - 4) == "TAIL");
  BOOST_TEST(t.find("bytes cut") != std::string::npos);
  BOOST_TEST(TruncateErrorText("short", 1000) == "short");
}

BOOST_AUTO_TEST_CASE(spread_reflects_noise_of_the_median) {
  std::vector<double> tight(50, 100.0), noisy;
  for (int i = 0; i < 50; ++i) noisy.push_back(100.0 + (i % 10) * 5);
  BOOST_TEST(stats::Spread(tight) == 0.0);
  BOOST_TEST(stats::Spread(noisy) > 0.05);
  BOOST_TEST(stats::Median({3, 1, 2}) == 2.0);
  BOOST_TEST(stats::Spread({5}) == 1.0);
}

// Two kernels doing the same work, measured in pairs while the machine's
// load drifts, with bursts on four of the honest kernel's calls: each pair's
// ratio is 1 apart from the bursts, so the paired speedup is 1 with a tight
// interval, while the medians taken apart only see two wide spreads.
BOOST_AUTO_TEST_CASE(paired_speedup_cancels_load_that_drifts_under_both_calls) {
  std::vector<double> slow, fast, ratios;
  for (int i = 0; i < 20; ++i) {
    const double load = 5.0 + (i % 7) * 2.0;
    const double burst = (i % 5 == 2) ? 2.0 : 1.0;
    slow.push_back(load * burst);
    fast.push_back(load);
    ratios.push_back(slow.back() / fast.back());
  }
  const stats::Ratio paired = stats::PairedSpeedup(ratios);
  const stats::Ratio apart = stats::SpeedupInterval(slow, fast);
  BOOST_TEST(paired.value == 1.0);
  BOOST_TEST(paired.low <= 1.0);
  BOOST_TEST(paired.high >= 1.0);
  BOOST_TEST(paired.high - paired.low < 0.5 * (apart.high - apart.low));
  BOOST_TEST(paired.covered);
  BOOST_TEST(stats::PairedSpeedup({}).value == 0.0);
  BOOST_TEST(stats::PairedSpeedup({2.0}).value == 2.0);
}

// The median's interval covers it with at least 95% for every n: from the
// binomial order statistics, [x(k), x(n+1-k)]. Three pairs cannot give one
// ([min, max] covers 75%: three pairs of kernels doing the same work all
// measured 4.25x or more one way under a CPU hog), six can.
BOOST_AUTO_TEST_CASE(the_median_interval_covers_95_percent_or_says_it_cannot) {
  std::vector<double> v;
  double lo = 0, hi = 0;
  for (double x : {4.4, 4.3, 4.6}) v.push_back(x);
  BOOST_TEST(!stats::ExactMedianInterval(v, &lo, &hi));
  BOOST_TEST(lo == 4.3);
  BOOST_TEST(hi == 4.6);
  BOOST_TEST(!stats::PairedSpeedup(v).covered);
  v = {6, 1, 5, 2, 4, 3};
  BOOST_TEST(stats::ExactMedianInterval(v, &lo, &hi));  // P(Bin(6, 1/2) = 0) = 1/64
  BOOST_TEST(lo == 1.0);
  BOOST_TEST(hi == 6.0);
  v.clear();
  for (int i = 20; i >= 1; --i) v.push_back(i);
  BOOST_TEST(stats::ExactMedianInterval(v, &lo, &hi));  // P(Bin(20, 1/2) <= 5) = 0.021, <= 6: 0.058
  BOOST_TEST(lo == 6.0);
  BOOST_TEST(hi == 15.0);
  v.assign(1000, 1.0);
  BOOST_TEST(stats::ExactMedianInterval(v, &lo, &hi));  // large n: no overflow in the binomial terms
}

BOOST_AUTO_TEST_SUITE_END()
