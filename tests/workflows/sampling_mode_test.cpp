// "sampling" mode on the scripted world: independent executor samples from
// the baseline, no planner, no memory, no beam, the best of all iterations,
// until T iterations or the budget ends it.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>

#include "workflows/prompts.hpp"
#include "workflows/report.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

CampaignSpec SamplingSpec(const World& w) {
  CampaignSpec spec = SmallSpec(w);
  spec.mode = kModeSampling;
  spec.search.B = 1;
  return spec;
}

BOOST_AUTO_TEST_CASE(sampling_draws_from_the_baseline_without_planner_or_memory) {
  const World world = MakeWorld();
  CampaignSpec spec = SamplingSpec(world);
  // Sample n0/k0 of iteration 1 only writes level 2 (two levels at once), so
  // that the best of all iterations is not the last one's.
  Script script = MakeScript(world);
  auto llm = script.llm;
  script.llm = [llm](const ActivityRequest& a) {
    ScriptedReply r = llm(a);
    if (a.role != kRoleExecutor) return r;
    const std::string user = a.request.at("user").get<std::string>();
    const std::string fn = user.find("void silu(") != std::string::npos ? "silu" : "gelu";
    const bool jump =
        a.activity_id.find("/it1/") != std::string::npos && a.activity_id.find("/n0/k0") != std::string::npos;
    if (a.activity_id.find("/n0/k0") != std::string::npos) r.text = "```cpp\n" + Kernel(fn, jump ? 2 : 1) + "```\n";
    return r;
  };
  Sim sim(spec, script, 5);
  REQUIRE_OK(sim.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(sim.RunToEnd());
  const CampaignState& st = sim.state();
  BOOST_TEST(st.status == kStatusCompleted);
  std::map<std::string, int> calls_by_role;
  for (const auto& [id, a] : st.activities)
    if (a.kind == ActivityKind::kLlm) ++calls_by_role[a.role];
  BOOST_TEST(calls_by_role[kRolePlanner] == 0);
  BOOST_TEST(calls_by_role[kRoleSummarizer] == 0);
  // T x B x N x K executor samples per problem (plus fixes: none here).
  BOOST_TEST(calls_by_role[kRoleExecutor] == 2 * spec.search.T * spec.search.N * spec.search.K);
  for (const ProblemState& ps : st.problems) {
    BOOST_TEST(ps.memory.empty());
    BOOST_REQUIRE_EQUAL(ps.iterations.size(), static_cast<size_t>(spec.search.T));
    for (const IterationState& it : ps.iterations) {
      BOOST_REQUIRE_EQUAL(it.beam.size(), 1u);
      BOOST_TEST(it.beam[0].source_sha256 == ps.info.baseline_sha256);  // always from the baseline
      BOOST_TEST(it.pairs.empty());
      for (const PlanRecord& plan : it.plans) BOOST_TEST(plan.title == kSamplingPlanTitle);
    }
    // The best is iteration 1's level-2 sample, re-measured.
    BOOST_TEST(ps.final_best.selected);
    BOOST_TEST(ps.final_best.selection["origin"].get<std::string>().find("/it1/") != std::string::npos);
    BOOST_TEST(LevelOf(*sim.blobs().Get(ps.final_best.source_sha256)) == 2);
  }
  // The executor sees the fixed plan, and the baseline as its kernel.
  for (const auto& [id, a] : st.activities) {
    if (a.role != kRoleExecutor || a.purpose != kPurposeExecute) continue;
    const std::string user = *sim.blobs().Get(a.payload.at("user_sha256").get<std::string>());
    BOOST_TEST(user.find(kSamplingPlanTitle) != std::string::npos);
    BOOST_TEST(LevelOf(user) == 0, id);
  }
  const json report = BuildReport(st);
  for (const json& p : report["problems"]) {
    BOOST_TEST(p["speedup"].get<double>() == std::pow(kLevelFactor, 2), boost::test_tools::tolerance(1e-9));
  }
}

BOOST_AUTO_TEST_CASE(sampling_runs_until_its_dollar_budget_is_spent) {
  const World world = MakeWorld();
  CampaignSpec spec = SamplingSpec(world);
  spec.search.T = 1000;  // the budget ends it
  spec.budget.max_cost_usd = 0.2;
  Sim sim(spec, MakeScript(world), 2);
  REQUIRE_OK(sim.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(sim.RunToEnd());
  const CampaignState& st = sim.state();
  BOOST_TEST(st.status == kStatusBudgetExhausted);
  BOOST_TEST(st.exhausted_resource == kBudgetCost);
  BOOST_TEST(st.budget.spent.cost_nusd <= 200'000'000);
  BOOST_TEST(st.budget.spent.cost_nusd > 100'000'000);
  const json report = BuildReport(st);
  for (const json& p : report["problems"]) BOOST_TEST(p["speedup"].get<double>() >= 1.0);
}

BOOST_AUTO_TEST_CASE(sampling_refuses_a_memory_scope) {
  const World world = MakeWorld();
  CampaignSpec spec = SamplingSpec(world);
  BOOST_TEST(Validate(spec).ok());
  spec.memory.scope = "campaign";
  const Status st = Validate(spec);
  BOOST_TEST(!st.ok());
  BOOST_TEST(st.message().find("sampling") != std::string::npos);
  spec.memory.scope = "problem";
  spec.mode = "sampled";
  BOOST_TEST(Validate(spec).message().find("known: default, paper, sampling") != std::string::npos);
}

// The memory-off arm of "does the memory help": memory.scope "none" keeps
// the search (beam from the children) and drops the memory.
BOOST_AUTO_TEST_CASE(memory_scope_none_searches_without_memory) {
  const World world = MakeWorld();
  CampaignSpec spec = SmallSpec(world);  // paper
  spec.memory.scope = "none";
  REQUIRE_OK(Validate(spec));
  Sim sim(spec, MakeScript(world), 4);
  REQUIRE_OK(sim.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(sim.RunToEnd());
  int summarizers = 0;
  for (const auto& [id, a] : sim.state().activities) {
    summarizers += a.role == kRoleSummarizer;
    if (a.purpose == kPurposePlan) {
      BOOST_TEST(sim.blobs().Get(a.payload.at("system_sha256").get<std::string>())->find("Experiences") ==
                 std::string::npos);
    }
  }
  BOOST_TEST(summarizers == 0);
  for (const ProblemState& ps : sim.state().problems) {
    BOOST_TEST(ps.memory.empty());
    // Still a search: iteration 2's beam descends from iteration 1's children.
    BOOST_TEST(LevelOf(*sim.blobs().Get(ps.iterations.back().beam[0].source_sha256)) == spec.search.T - 1);
  }
}

}  // namespace
}  // namespace accelopt::workflows::testing
