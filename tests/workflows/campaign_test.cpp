// A small simulated campaign (2 problems, T=3, B=2, N=2, K=2) driven to the
// end by the in-memory runtime: it completes, finds the scripted faster
// kernels, records bad replies as failed candidates, and its report follows
// from its events.
#include <boost/test/unit_test.hpp>

#include <map>
#include <set>

#include <cmath>
#include <map>

#include "workflows/parse.hpp"
#include "workflows/report.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

struct Ran {
  World world;
  CampaignSpec spec;
  Sim sim;
  Ran(uint64_t order_seed = 1) : world(MakeWorld()), spec(SmallSpec(world)), sim(spec, MakeScript(world), order_seed) {}
};

BOOST_AUTO_TEST_CASE(small_campaign_completes_and_finds_faster_kernels) {
  Ran r;
  REQUIRE_OK(r.sim.Start("c1", r.world.sources, r.world.hardware));
  REQUIRE_OK(r.sim.RunToEnd());
  const CampaignState& st = r.sim.state();
  BOOST_TEST(st.status == kStatusCompleted);
  BOOST_TEST(st.in_flight == 0);
  BOOST_TEST(st.budget.reserved.llm_calls == 0);
  BOOST_TEST(st.budget.reserved.cost_nusd == 0);
  const int T = r.spec.search.T;
  for (const ProblemState& ps : st.problems) {
    BOOST_TEST(ps.status == kStatusCompleted);
    BOOST_TEST(static_cast<int>(ps.iterations.size()) == T);
    // Each iteration adds one level to the best kernel (the scripted n0/k0).
    const IterationState& last = ps.iterations.back();
    int best_level = -1;
    for (const CandidateRecord& c : last.candidates) {
      if (c.ok && c.measurement.correct) {
        best_level = std::max(best_level, LevelOf(*r.sim.blobs().Get(c.source_sha256)));
      }
    }
    BOOST_TEST(best_level == T);
    // Paper beam: the fastest group first.
    for (int i = 1; i < T; ++i) {
      const auto& beam = ps.iterations[i].beam;
      BOOST_REQUIRE_EQUAL(beam.size(), 2u);
      BOOST_TEST(LevelOf(*r.sim.blobs().Get(beam[0].source_sha256)) == i);
      BOOST_TEST(beam[0].selection_latency_us <= beam[1].selection_latency_us);
    }
    // Memory: a positive and a negative item per iteration >= 1, capped.
    BOOST_TEST(ps.memory.size() <= static_cast<size_t>(r.spec.search.ExpN));
    BOOST_TEST(!ps.memory.empty());
  }

  // Bad replies are recorded failed candidates, not errors.
  std::map<std::string, int> failures;
  for (const Event& e : r.sim.log()) {
    if (e.type == event_type::kCandidateProposed && !e.data["ok"].get<bool>()) {
      ++failures[e.data["failure"].get<std::string>()];
    }
  }
  BOOST_TEST(failures[kNoCodeBlock] > 0);
  // paper: code without the function is evaluated (and fails), as published.
  BOOST_TEST(failures[kMissingFunction] == 0);
  int evaluated_without_function = 0;
  for (const ProblemState& ps : st.problems)
    for (const IterationState& it : ps.iterations)
      for (const CandidateRecord& c : it.candidates)
        if (c.ok && c.detail.find("evaluated anyway") != std::string::npos) {
          BOOST_TEST(c.evaluated);
          BOOST_TEST(c.measurement.status == "compile_error");
          ++evaluated_without_function;
        }
  BOOST_TEST(evaluated_without_function > 0);

  // The report: speedup 1.5^T per problem, % of peak rising each iteration.
  const json report = BuildReport(st);
  BOOST_TEST(report["status"] == "completed");
  double log_speedup = 0;
  for (const json& p : report["problems"]) {
    const double expected = std::pow(kLevelFactor, T);
    BOOST_TEST(p["speedup"].get<double>() == expected, boost::test_tools::tolerance(1e-9));
    const std::string best = *r.sim.blobs().Get(p["best"]["source_sha256"].get<std::string>());
    BOOST_TEST(LevelOf(best) == T);
    const json& pct = p["percent_of_peak_by_iteration"];
    BOOST_REQUIRE_EQUAL(pct.size(), static_cast<size_t>(T));
    // Baseline = 10% of peak; after iteration i the best is level i+1.
    BOOST_TEST(p["baseline"]["percent_of_peak"].get<double>() == 10.0, boost::test_tools::tolerance(1e-9));
    for (int i = 0; i < T; ++i) {
      BOOST_TEST(pct[i].get<double>() == 10.0 * std::pow(kLevelFactor, i + 1), boost::test_tools::tolerance(1e-9));
    }
    log_speedup += std::log(p["speedup"].get<double>());
  }
  BOOST_TEST(report["geomean"]["speedup"].get<double>() == std::exp(log_speedup / 2),
             boost::test_tools::tolerance(1e-9));
  BOOST_TEST(report["geomean"]["best_percent_of_peak"].get<double>() == 10.0 * std::pow(kLevelFactor, T),
             boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(report_usage_follows_from_events) {
  Ran r;
  REQUIRE_OK(r.sim.Start("c1", r.world.sources, r.world.hardware));
  REQUIRE_OK(r.sim.RunToEnd());
  // Recompute cost, tokens and calls per role and per model straight from the
  // event list, independently of the fold.
  std::map<std::string, std::string> role_of, model_of;
  std::map<std::string, double> cost_by_role, cost_by_model;
  std::map<std::string, int64_t> in_by_role, out_by_role, calls_by_role;
  int64_t evaluations = 0;
  for (const Event& e : r.sim.log()) {
    if (e.type == event_type::kActivityScheduled) {
      role_of[e.data["activity_id"]] = e.data["role"];
      if (e.data["kind"] == "llm") {
        model_of[e.data["activity_id"]] =
            e.data["payload"]["provider"].get<std::string>() + "/" + e.data["payload"]["model"].get<std::string>();
      }
    } else if (e.type == event_type::kLlmCallCompleted || e.type == event_type::kLlmCallFailed) {
      const std::string id = e.data["activity_id"];
      cost_by_role[role_of[id]] += e.data["cost_usd"].get<double>();
      cost_by_model[model_of[id]] += e.data["cost_usd"].get<double>();
      in_by_role[role_of[id]] += e.data["usage"]["input_tokens"].get<int64_t>();
      out_by_role[role_of[id]] += e.data["usage"]["output_tokens"].get<int64_t>();
      ++calls_by_role[role_of[id]];
    } else if (e.type == event_type::kEvaluationCompleted) {
      ++evaluations;
    }
  }
  auto folded = Fold(r.sim.log());
  BOOST_REQUIRE(folded.ok());
  const json report = BuildReport(*folded);
  BOOST_TEST(report == BuildReport(r.sim.state()));  // live state == replayed state
  const json& usage = report["usage"];
  BOOST_TEST(usage["by_role"].size() == 3u);
  double total = 0;
  for (const auto& [role, cost] : cost_by_role) {
    BOOST_TEST(usage["by_role"][role]["cost_usd"].get<double>() == cost, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(usage["by_role"][role]["input_tokens"].get<int64_t>() == in_by_role[role]);
    BOOST_TEST(usage["by_role"][role]["output_tokens"].get<int64_t>() == out_by_role[role]);
    BOOST_TEST(usage["by_role"][role]["calls"].get<int64_t>() == calls_by_role[role]);
    BOOST_TEST(cost > 0);
    total += cost;
  }
  for (const auto& [model, cost] : cost_by_model) {
    BOOST_TEST(usage["by_model"][model]["cost_usd"].get<double>() == cost, boost::test_tools::tolerance(1e-9));
  }
  BOOST_TEST(usage["total"]["cost_usd"].get<double>() == total, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(usage["evaluations"].get<int64_t>() == evaluations);
}

BOOST_AUTO_TEST_CASE(completion_order_does_not_change_the_outcome) {
  Ran a(1), b(99);
  REQUIRE_OK(a.sim.Start("c1", a.world.sources, a.world.hardware));
  REQUIRE_OK(b.sim.Start("c1", b.world.sources, b.world.hardware));
  REQUIRE_OK(a.sim.RunToEnd());
  REQUIRE_OK(b.sim.RunToEnd());
  BOOST_TEST(a.sim.log().size() == b.sim.log().size());
  BOOST_TEST(BuildReport(a.sim.state()) == BuildReport(b.sim.state()));
}

BOOST_AUTO_TEST_CASE(failing_baseline_fails_its_problem_only) {
  Ran r;
  Script script = MakeScript(r.world);
  auto evaluate = script.evaluate;
  script.evaluate = [evaluate](const ActivityRequest& a) {
    json result = evaluate(a);
    if (a.request["problem"] == "suites/cpu/gelu") {
      result["status"] = "wrong_result";
      result["correct"] = false;
      result["reason"] = "max relative error 0.3";
    }
    return result;
  };
  Sim sim(r.spec, script, 3);
  REQUIRE_OK(sim.Start("c1", r.world.sources, r.world.hardware));
  REQUIRE_OK(sim.RunToEnd());
  // One problem failed, one completed: the campaign is partial, not completed.
  BOOST_TEST(sim.state().status == kStatusPartial);
  BOOST_TEST(sim.state().reason.find("1 of 2 problems failed") != std::string::npos);
  BOOST_TEST(sim.state().reason.find("wrong_result") != std::string::npos);
  BOOST_TEST(sim.state().problems[0].status == kStatusCompleted);
  BOOST_TEST(sim.state().problems[1].status == kStatusFailed);
  BOOST_TEST(sim.state().problems[1].reason.find("wrong_result") != std::string::npos);
  // No planner call was made for the failed problem.
  for (const auto& [id, n] : sim.llm_requests()) BOOST_TEST(id.find("c1/p1/") != 0u);
}

BOOST_AUTO_TEST_CASE(llm_failures_are_recorded_not_fatal) {
  Ran r;
  Script script = MakeScript(r.world);
  auto llm = script.llm;
  script.llm = [llm](const ActivityRequest& a) {
    // Every executor call of the second plan, and one planner call, fail.
    if ((a.role == kRoleExecutor && a.activity_id.find("/n1/") != std::string::npos) ||
        a.activity_id == "c1/p0/it1/plan/b0/n0") {
      return ScriptedReply{false, "", "HTTP 500 after 3 attempts"};
    }
    return llm(a);
  };
  Sim sim(r.spec, script, 5);
  REQUIRE_OK(sim.Start("c1", r.world.sources, r.world.hardware));
  REQUIRE_OK(sim.RunToEnd());
  BOOST_TEST(sim.state().status == kStatusCompleted);
  int llm_failed = 0, failed_plans = 0;
  for (const Event& e : sim.log()) {
    if (e.type == event_type::kCandidateProposed && e.data["failure"] == kLlmFailed) ++llm_failed;
    if (e.type == event_type::kPlanProposed && !e.data["ok"].get<bool>()) ++failed_plans;
  }
  BOOST_TEST(llm_failed > 0);
  BOOST_TEST(failed_plans == 1);
  const json report = BuildReport(sim.state());
  BOOST_TEST(report["usage"]["by_role"]["executor"]["failed_calls"].get<int64_t>() == llm_failed);
}

// paper: the reported speedup is the published one: best child per
// iteration against the baseline, headline at the first iteration reaching
// the rounded maximum.
BOOST_AUTO_TEST_CASE(paper_reports_the_published_speedup) {
  Ran r;
  REQUIRE_OK(r.sim.Start("c1", r.world.sources, r.world.hardware));
  REQUIRE_OK(r.sim.RunToEnd());
  const json report = BuildReport(r.sim.state());
  for (size_t p = 0; p < report["problems"].size(); ++p) {
    const json& rp = report["problems"][p];
    const ProblemState& ps = r.sim.state().problems[p];
    const double base = rp["baseline"]["latency_us"].get<double>();
    double head = -1, head_rounded = -1;
    for (const IterationState& it : ps.iterations) {
      double fastest = 0;
      for (const CandidateRecord& c : it.candidates)
        if (c.ok && c.evaluated && c.measurement.correct && (fastest == 0 || c.measurement.latency_us < fastest))
          fastest = c.measurement.latency_us;
      if (fastest == 0) continue;
      if (std::round(base / fastest * 100) / 100 > head_rounded) {
        head_rounded = std::round(base / fastest * 100) / 100;
        head = base / fastest;
      }
    }
    BOOST_REQUIRE(head > 0);
    BOOST_TEST(rp["speedup"].get<double>() == head);
    BOOST_TEST(rp["published_speedup"]["value"].get<double>() == head);
    BOOST_TEST(rp["published_speedup"]["by_iteration"].size() == ps.iterations.size());
  }
}

std::string BlobText(const Sim& sim, const ActivityRecord& a, const char* key) {
  return *sim.blobs().Get(a.payload.at(key).get<std::string>());
}

// Published: the planner's profile is shuffled once per beam member, so all N
// planner calls of a member see one prompt; "No optimization found" items
// take memory capacity but are never shown to the planner.
BOOST_AUTO_TEST_CASE(paper_planners_of_a_member_share_one_prompt_without_noop_items) {
  Ran r;
  r.spec.search.N = 3;
  Script script = MakeScript(r.world);
  auto llm = script.llm;
  script.llm = [llm](const ActivityRequest& a) {
    if (a.role == kRoleSummarizer) return ScriptedReply{true, "No optimization found", ""};
    return llm(a);
  };
  Sim sim(r.spec, script, 11);
  REQUIRE_OK(sim.Start("c1", r.world.sources, r.world.hardware));
  REQUIRE_OK(sim.RunToEnd());
  std::map<std::string, std::set<std::string>> prompts;  // beam member -> distinct prompts
  int noop_items = 0;
  for (const ProblemState& ps : sim.state().problems)
    for (const MemoryItem& m : ps.memory) noop_items += m.no_optimization;
  BOOST_TEST(noop_items > 0);  // they take capacity...
  for (const auto& [id, a] : sim.state().activities) {
    if (a.purpose != kPurposePlan) continue;
    const std::string member = id.substr(0, id.rfind("/n"));
    const std::string system = BlobText(sim, a, "system_sha256");
    prompts[member].insert(system + "\n--\n" + BlobText(sim, a, "user_sha256"));
    // ...but are never shown.
    BOOST_TEST(system.find("No optimization found") == std::string::npos, id);
  }
  BOOST_REQUIRE(!prompts.empty());
  for (const auto& [member, distinct] : prompts) BOOST_TEST(distinct.size() == 1u, member);
}

// A problem whose every LLM call failed did not do its work: it fails with
// the provider's error, and a campaign of such problems fails.
BOOST_AUTO_TEST_CASE(every_llm_call_failing_fails_the_campaign) {
  for (const char* mode : {kModeDefault, kModePaper}) {
    BOOST_TEST_CONTEXT(mode) {
      Ran r;
      r.spec.mode = mode;
      Script script = MakeScript(r.world);
      script.llm = [](const ActivityRequest&) {
        return ScriptedReply{false, "", "auth (HTTP 401) from provider 'local': HTTP 401: bad key"};
      };
      Sim sim(r.spec, script, 7);
      REQUIRE_OK(sim.Start("c1", r.world.sources, r.world.hardware));
      REQUIRE_OK(sim.RunToEnd());
      BOOST_TEST(sim.state().status == kStatusFailed);
      for (const ProblemState& ps : sim.state().problems) {
        BOOST_TEST(ps.status == kStatusFailed);
        BOOST_TEST(ps.reason.find("no candidate was evaluated") != std::string::npos, ps.reason);
        BOOST_TEST(ps.reason.find("auth (HTTP 401) from provider 'local'") != std::string::npos, ps.reason);
      }
      BOOST_TEST(sim.state().reason.find("auth (HTTP 401)") != std::string::npos);
    }
  }
}

// Only one problem's calls fail: that problem fails, the other completes,
// and the campaign says partial.
BOOST_AUTO_TEST_CASE(one_problem_without_a_model_makes_the_campaign_partial) {
  Ran r;
  Script script = MakeScript(r.world);
  auto llm = script.llm;
  script.llm = [llm](const ActivityRequest& a) {
    if (a.activity_id.rfind("c1/p1/", 0) == 0)
      return ScriptedReply{false, "", "server_error (HTTP 500) from provider 'x'"};
    return llm(a);
  };
  Sim sim(r.spec, script, 9);
  REQUIRE_OK(sim.Start("c1", r.world.sources, r.world.hardware));
  REQUIRE_OK(sim.RunToEnd());
  BOOST_TEST(sim.state().status == kStatusPartial);
  BOOST_TEST(sim.state().problems[0].status == kStatusCompleted);
  BOOST_TEST(sim.state().problems[1].status == kStatusFailed);
  BOOST_TEST(sim.state().problems[1].reason.find("HTTP 500") != std::string::npos);
}

}  // namespace
}  // namespace accelopt::workflows::testing
