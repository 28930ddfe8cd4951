// `acceloptctl events` in table mode (cli/event_summary.hpp): one line per
// event, activity ids shown within their campaign (workflows/activity_id.hpp,
// WithinCampaign), without a daemon.
#include <boost/test/unit_test.hpp>

#include "cli/event_summary.hpp"
#include "workflows/activity_id.hpp"

using namespace accelopt;
namespace activity_id = accelopt::workflows::activity_id;

namespace {

// The summary part of EventLine: what follows "<version>  <time>  <type>  ".
std::string SummaryOf(const std::string& type, const json& data) {
  const std::string line = cli::EventLine({{"version", 7}, {"type", type}, {"data", data}});
  const std::string head = "7  --:--:--  " + type + "  ";
  BOOST_REQUIRE_EQUAL(line.substr(0, head.size()), head);
  return line.substr(head.size());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(event_summary)

BOOST_AUTO_TEST_CASE(activity_ids_are_shown_within_their_campaign) {
  const std::string c = "c20260102-030405-a1b2c3";
  const std::string it = activity_id::Iteration(c, 0, 2);
  const std::string eval = activity_id::Evaluate(it, activity_id::SampleSuffix(0, 1, 0), 0);
  BOOST_CHECK_EQUAL(
      SummaryOf("ActivityScheduled",
                {{"activity_id", eval}, {"kind", "evaluation"}, {"role", "evaluator"}, {"purpose", "sample"}}),
      "p0/it2/eval/b0/n1/k0: evaluation evaluator/sample");
  BOOST_CHECK_EQUAL(SummaryOf("LlmCallFailed", {{"activity_id", activity_id::Plan(it, 1, 3)}, {"error", "HTTP 401"}}),
                    "p0/it2/plan/b1/n3: failed: HTTP 401");
  const std::string cand = activity_id::Candidate(it, activity_id::SampleSuffix(0, 0, 1));
  BOOST_CHECK_EQUAL(SummaryOf("EvaluationReused", {{"candidate_id", cand}, {"reused_activity", eval}}),
                    "p0/it2/cand/b0/n0/k1: same code as p0/it2/eval/b0/n1/k0");
  // The baseline lies under no problem: shown as it is.
  BOOST_CHECK_EQUAL(SummaryOf("BestSelected", {{"problem", 3}, {"origin", "baseline"}, {"latency_us", 12.5}}),
                    "p3: baseline 12.5 us");
}

BOOST_AUTO_TEST_CASE(within_campaign_cuts_only_at_the_problem_part) {
  BOOST_CHECK_EQUAL(activity_id::WithinCampaign("c1/p12/it0/final"), "p12/it0/final");
  BOOST_CHECK_EQUAL(activity_id::WithinCampaign("c1/p0"), "p0");
  // A "/p" that starts no problem part is no cut ("/plan", a bank "prod").
  BOOST_CHECK_EQUAL(activity_id::WithinCampaign("nightly/plan/p1/it0/plan/b0/n0"), "p1/it0/plan/b0/n0");
  BOOST_CHECK_EQUAL(activity_id::WithinCampaign(activity_id::RedistillCall("prod", "r1", 4)), "redistill/prod/r1/4");
  BOOST_CHECK_EQUAL(activity_id::WithinCampaign("baseline"), "baseline");
  BOOST_CHECK_EQUAL(activity_id::WithinCampaign(""), "");
}

BOOST_AUTO_TEST_SUITE_END()
