// Budgets: reservations before scheduling keep every cap, even with many
// slow replies in flight; when a budget runs out the campaign completes with
// status budget_exhausted and its best kernels so far.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "workflows/budget.hpp"
#include "workflows/report.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

BOOST_AUTO_TEST_CASE(reservation_is_the_worst_case_of_a_call) {
  RoleSpec r;
  r.max_tokens = 1000;
  r.pricing = Pricing{2.0, 10.0};
  const Amounts a = LlmReservation(r, 5000);
  BOOST_TEST(a.tokens == 5000 + kPromptOverheadTokens + 1000);
  BOOST_TEST(a.llm_calls == 1);
  const double want = ((5000 + kPromptOverheadTokens) * 2.0 + 1000 * 10.0) / 1e6;
  BOOST_TEST(a.cost_nusd == UsdToNanoCeil(want));
  BOOST_TEST(a.cost_usd() >= want);
  // Any usage within the bounds costs no more than the reservation.
  BOOST_TEST(UsdToNanoRound(CostOf(r, PromptTokenBound(5000), 1000)) <= a.cost_nusd);
  BOOST_TEST(UsdToNanoRound(CostOf(r, 1200, 1000)) < a.cost_nusd);
  r.pricing.reset();
  BOOST_TEST(LlmReservation(r, 10).cost_nusd == 0);
}

BOOST_AUTO_TEST_CASE(ledger_blocks_at_the_first_cap_crossed) {
  BudgetSpec caps;
  caps.max_cost_usd = 1.0;
  caps.max_llm_calls = 3;
  BudgetLedger l;
  Amounts call;
  call.cost_nusd = 400'000'000;  // 0.4 USD
  call.llm_calls = 1;
  BOOST_TEST(!l.Blocks(caps, call));
  l.Reserve(call);
  BOOST_TEST(!l.Blocks(caps, call));
  l.Reserve(call);
  BOOST_TEST(l.Blocks(caps, call).value() == kBudgetCost);  // 1.2 > 1.0
  Amounts actual = call;
  actual.cost_nusd = 100'000'000;  // cheaper than reserved: room again
  l.Settle(call, actual);
  BOOST_TEST(!l.Blocks(caps, call));
  l.Reserve(call);
  BOOST_TEST(l.Blocks(caps, call).value() == kBudgetCost);
  call.cost_nusd = 0;
  BOOST_TEST(l.Blocks(caps, call).value() == kBudgetLlmCalls);
  BudgetSpec none;
  BOOST_TEST(!l.Blocks(none, call));
}

// Drives a campaign under `spec` and checks spent + reserved <= cap after
// every single event.
struct CapRun {
  CampaignState final_state;
  int64_t max_llm_in_flight = 0;
  std::vector<Event> log;
};

CapRun RunWithCaps(const CampaignSpec& spec, bool worst_case, uint64_t seed) {
  const World world = MakeWorld();
  Script script = MakeScript(world);
  script.worst_case_usage = worst_case;
  Sim sim(spec, script, seed, /*max_in_flight=*/1000);
  CapRun out;
  auto check = [&](const CampaignState& st) {
    const BudgetLedger& l = st.budget;
    out.max_llm_in_flight = std::max(out.max_llm_in_flight, l.reserved.llm_calls);
    if (spec.budget.max_cost_usd) {
      BOOST_REQUIRE_LE(l.spent.cost_nusd + l.reserved.cost_nusd, static_cast<int64_t>(*spec.budget.max_cost_usd * 1e9));
    }
    if (spec.budget.max_tokens) {
      BOOST_REQUIRE_LE(l.spent.tokens + l.reserved.tokens, *spec.budget.max_tokens);
    }
    if (spec.budget.max_llm_calls) {
      BOOST_REQUIRE_LE(l.spent.llm_calls + l.reserved.llm_calls, *spec.budget.max_llm_calls);
    }
    if (spec.budget.max_evaluations) {
      BOOST_REQUIRE_LE(l.spent.evaluations + l.reserved.evaluations, *spec.budget.max_evaluations);
    }
  };
  REQUIRE_OK(sim.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(sim.RunToEnd(check));
  out.final_state = sim.state();
  out.log = sim.log();
  return out;
}

void ExpectExhaustedWithBestSoFar(const CapRun& run, const char* resource) {
  const CampaignState& st = run.final_state;
  BOOST_TEST(st.status == kStatusBudgetExhausted);
  BOOST_TEST(st.exhausted_resource == resource);
  BOOST_TEST(st.in_flight == 0);
  const json report = BuildReport(st);
  BOOST_TEST(report["status"] == kStatusBudgetExhausted);
  for (const json& p : report["problems"]) {
    BOOST_TEST(!p["best"].is_null());
    // The best so far is never worse than the baseline (the speedup itself,
    // in paper mode, is the published children-only figure and may be < 1).
    BOOST_TEST(p["best"]["latency_us"].get<double>() <= p["baseline"]["latency_us"].get<double>());
    BOOST_TEST(p["speedup"].is_number());
  }
  // The last two events: BudgetExhausted, then CampaignCompleted.
  BOOST_REQUIRE_GE(run.log.size(), 2u);
  BOOST_TEST(run.log[run.log.size() - 2].type == event_type::kBudgetExhausted);
  BOOST_TEST(run.log.back().type == event_type::kCampaignCompleted);
}

BOOST_AUTO_TEST_CASE(tiny_cost_cap_with_slow_replies_in_flight_is_never_overshot) {
  const World world = MakeWorld();
  for (bool worst_case : {true, false}) {
    for (uint64_t seed : {1, 2, 3}) {
      CampaignSpec spec = SmallSpec(world);
      // Two planner reservations (prompt bytes as tokens + max_tokens,
      // ~$0.011 each with the paper glossary) fit, three do not.
      spec.budget.max_cost_usd = 0.025;
      CapRun run = RunWithCaps(spec, worst_case, seed);
      ExpectExhaustedWithBestSoFar(run, kBudgetCost);
      BOOST_TEST(run.max_llm_in_flight > 1);  // calls really were in flight together
      BOOST_TEST(run.final_state.budget.spent.cost_nusd <= 25'000'000);
      if (worst_case) {
        // Billing the worst case, spend approaches the cap closely: the next
        // call's reservation no longer fits.
        BOOST_TEST(run.final_state.budget.spent.cost_nusd > 25'000'000 / 2);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(call_token_and_evaluation_caps_hold) {
  const World world = MakeWorld();
  {
    CampaignSpec spec = SmallSpec(world);
    spec.budget.max_llm_calls = 7;
    CapRun run = RunWithCaps(spec, false, 4);
    ExpectExhaustedWithBestSoFar(run, kBudgetLlmCalls);
    BOOST_TEST(run.final_state.budget.spent.llm_calls == 7);
  }
  {
    CampaignSpec spec = SmallSpec(world);
    spec.budget.max_tokens = 30'000;
    CapRun run = RunWithCaps(spec, true, 5);
    ExpectExhaustedWithBestSoFar(run, kBudgetTokens);
    BOOST_TEST(run.final_state.budget.spent.tokens <= 30'000);
  }
  {
    CampaignSpec spec = SmallSpec(world);
    spec.budget.max_evaluations = 9;
    CapRun run = RunWithCaps(spec, false, 6);
    ExpectExhaustedWithBestSoFar(run, kBudgetEvaluations);
    BOOST_TEST(run.final_state.budget.spent.evaluations == 9);
  }
}

BOOST_AUTO_TEST_CASE(wall_time_ends_the_campaign_from_event_time_alone) {
  const World world = MakeWorld();
  CampaignSpec spec = SmallSpec(world);
  spec.budget.max_wall_s = 0.05;  // the simulated clock advances 1 ms per event
  CapRun run = RunWithCaps(spec, false, 7);
  BOOST_TEST(run.final_state.status == kStatusBudgetExhausted);
  BOOST_TEST(run.final_state.exhausted_resource == kBudgetWallTime);
  auto deadline = WallDeadlineUs(run.final_state);
  BOOST_REQUIRE(deadline.has_value());
  // The campaign ended at the first decision at or after the deadline.
  int64_t ended_at = 0;
  for (const Event& e : run.log) {
    if (e.type == event_type::kCampaignCompleted) ended_at = e.recorded_at_us;
  }
  BOOST_TEST(ended_at >= *deadline);
  BOOST_TEST(ended_at <= *deadline + 2000);
}

BOOST_AUTO_TEST_CASE(deadline_reached_event_lets_decide_see_the_time) {
  const World world = MakeWorld();
  CampaignSpec spec = SmallSpec(world);
  spec.budget.max_wall_s = 60;
  auto start = StartCampaign("c1", spec, world.sources, world.hardware);
  REQUIRE_OK(start.status());
  CampaignState st;
  Event started = start->event;
  started.recorded_at_us = 1'000'000;
  REQUIRE_OK(Apply(st, started));
  MapBlobSource blobs;
  for (const Blob& b : start->blobs) blobs.Put(b.content);
  DecideAll(st, blobs);
  BOOST_TEST(!st.finished());
  BOOST_TEST(st.in_flight > 0);
  Event tick = DeadlineReachedEvent();
  tick.recorded_at_us = *WallDeadlineUs(st);
  REQUIRE_OK(Apply(st, tick));
  auto next = Decide(st, blobs);
  REQUIRE_OK(next.status());
  BOOST_REQUIRE_EQUAL(next->size(), 2u);
  BOOST_TEST((*next)[0].event.data["resource"] == kBudgetWallTime);
  BOOST_TEST((*next)[1].event.data["status"] == kStatusBudgetExhausted);
}

BOOST_AUTO_TEST_CASE(cancelled_campaign_decides_nothing_more) {
  const World world = MakeWorld();
  CampaignSpec spec = SmallSpec(world);
  auto start = StartCampaign("c1", spec, world.sources, world.hardware);
  REQUIRE_OK(start.status());
  CampaignState st;
  REQUIRE_OK(Apply(st, start->event));
  MapBlobSource blobs;
  for (const Blob& b : start->blobs) blobs.Put(b.content);
  DecideAll(st, blobs);
  BOOST_REQUIRE(st.in_flight > 0);
  REQUIRE_OK(Apply(st, CampaignCancelledEvent("user asked")));
  BOOST_TEST(st.status == kStatusCancelled);
  auto next = Decide(st, blobs);
  REQUIRE_OK(next.status());
  BOOST_TEST(next->empty());
  // A late completion is still folded (its cost counts).
  const int64_t before = st.in_flight;
  REQUIRE_OK(Apply(st, EvaluationCompletedEvent(st.activities.begin()->first, json::object())));
  BOOST_TEST(st.in_flight == before - 1);
}

}  // namespace
}  // namespace accelopt::workflows::testing
