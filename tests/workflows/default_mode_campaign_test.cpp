// The "default" search mode in simulated campaigns with scripted faults:
// the final re-measurement and what is reported from it, de-duplication of
// code and memory, the fixer and its bounds, credited experiences, a beam
// that never loses the best kernel (the hand-built cases of the same rules:
// default_mode_test.cpp).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <set>

#include "base/sha256.hpp"
#include "workflows/beam.hpp"
#include "workflows/memory_policy.hpp"
#include "workflows/normalize.hpp"
#include "workflows/parse.hpp"
#include "workflows/prompts.hpp"
#include "workflows/report.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

struct DefaultRun {
  World world = MakeWorld();
  CampaignSpec spec = DefaultSpec(world);
  std::vector<Event> log;
  CampaignState state;
  MapBlobSource blobs;
  std::map<std::string, int> types;

  void Run(const Script& script, uint64_t order_seed = 3) {
    Sim sim(spec, script, order_seed, 4);
    REQUIRE_OK(sim.Start("c1", world.sources, world.hardware));
    REQUIRE_OK(sim.RunToEnd());
    log = sim.log();
    state = sim.state();
    blobs = sim.blobs();
    for (const Event& e : log) ++types[e.type];
  }
  const Event* Scheduled(const std::string& id) const {
    for (const Event& e : log) {
      if (e.type == event_type::kActivityScheduled && e.data["activity_id"] == id) return &e;
    }
    return nullptr;
  }
  std::string Code(const std::string& sha) const { return *blobs.Get(sha); }
};

BOOST_AUTO_TEST_CASE(default_campaign_completes_with_a_remeasured_confirmed_best) {
  DefaultRun r;
  r.Run(MakeFaultyScript(r.world));
  BOOST_TEST(r.state.status == kStatusCompleted);
  BOOST_TEST(r.state.in_flight == 0);
  const json report = BuildReport(r.state);
  BOOST_TEST(report["mode"] == "default");
  const int T = r.spec.search.T;
  size_t problem_index = 0;
  for (const json& p : report["problems"]) {
    const ProblemState& state = r.state.problems.at(problem_index++);
    BOOST_TEST(p["status"] == "completed");
    // The scripted n0/k0 raises the level each iteration: level T is found.
    BOOST_TEST(LevelOf(r.Code(p["best"]["source_sha256"].get<std::string>())) == T);
    BOOST_TEST(p["speedup"].get<double>() == std::pow(kLevelFactor, T), boost::test_tools::tolerance(1e-9));
    const json& f = p["final"];
    BOOST_REQUIRE(f.is_object());
    BOOST_TEST(f["remeasured"]["correct"] == true);
    BOOST_TEST(f["within_noise_of_parent"] == false);
    BOOST_TEST(f["confirmed"] == true);
    BOOST_TEST(f["parent"]["latency_us"].get<double>() == p["best"]["latency_us"].get<double>() * kLevelFactor,
               boost::test_tools::tolerance(1e-9));
    const std::string final_id = f["remeasured"]["activity_id"];
    const Event* e = r.Scheduled(final_id);
    BOOST_REQUIRE(e);
    BOOST_TEST(e->data["purpose"] == kPurposeFinalMeasure);
    // Measured side by side with the problem's baseline, in one run.
    BOOST_TEST(e->data["payload"].value("compare_source_sha256", "") == state.info.baseline_sha256);
  }
  // The final measurement comes before ProblemCompleted and after BestSelected.
  int best_at = -1, final_at = -1, done_at = -1;
  for (size_t i = 0; i < r.log.size(); ++i) {
    const Event& e = r.log[i];
    if (e.data.value("problem", -1) != 0) continue;
    if (e.type == event_type::kBestSelected) best_at = static_cast<int>(i);
    if (e.type == event_type::kActivityScheduled && e.data["purpose"] == kPurposeFinalMeasure) {
      final_at = static_cast<int>(i);
    }
    if (e.type == event_type::kProblemCompleted) done_at = static_cast<int>(i);
  }
  BOOST_TEST(best_at >= 0);
  BOOST_TEST(best_at < final_at);
  BOOST_TEST(final_at < done_at);
}

BOOST_AUTO_TEST_CASE(a_best_that_falls_back_on_remeasurement_is_reported_as_such) {
  DefaultRun r;
  Script script = MakeFaultyScript(r.world);
  auto evaluate = script.evaluate;
  script.evaluate = [evaluate](const ActivityRequest& a) {
    json result = evaluate(a);
    if (a.activity_id.size() > 6 && a.activity_id.substr(a.activity_id.size() - 6) == "/final") {
      // Fresh measurement: 1.45x slower, within the noise of the parent.
      const double l = result["latency"]["median_us"].get<double>() * 1.49;
      result["latency"]["median_us"] = l;
      result["latency"]["spread"] = 0.02;
    }
    return result;
  };
  r.Run(script);
  const json report = BuildReport(r.state);
  for (const json& p : report["problems"]) {
    const json& f = p["final"];
    BOOST_TEST(f["within_noise_of_parent"] == true);
    BOOST_TEST(f["confirmed"] == false);
    // The best's latency is the fresh one, not the lucky one it was chosen with.
    BOOST_TEST(p["best"]["latency_us"].get<double>() == f["selected_latency_us"].get<double>() * 1.49,
               boost::test_tools::tolerance(1e-9));
  }
}

// A final best whose fresh re-measurement fails (wrong on fresh inputs) is
// not reported at the latency it was selected with.
BOOST_AUTO_TEST_CASE(a_final_best_that_fails_its_remeasurement_is_not_reported) {
  DefaultRun r;
  Script script = MakeFaultyScript(r.world);
  auto evaluate = script.evaluate;
  script.evaluate = [evaluate](const ActivityRequest& a) {
    json result = evaluate(a);
    if (a.activity_id.size() > 6 && a.activity_id.substr(a.activity_id.size() - 6) == "/final") {
      result["status"] = "wrong_result";
      result["correct"] = false;
      result["reason"] = "fresh case: max relative error 0.5";
    }
    return result;
  };
  r.Run(script);
  const json report = BuildReport(r.state);
  for (size_t p = 0; p < report["problems"].size(); ++p) {
    const json& rp = report["problems"][p];
    const json& f = rp["final"];
    BOOST_REQUIRE(f.is_object());
    BOOST_TEST(f["confirmed"] == false);
    BOOST_REQUIRE(f["fallback"].is_object());
    BOOST_TEST(f["fallback"]["reason"].get<std::string>().find("wrong_result") != std::string::npos);
    BOOST_TEST(rp["best"]["latency_us"].get<double>() != f["selected_latency_us"].get<double>());
    // The best is a member of the last beam whose own re-measurement passed.
    const IterationState& last = r.state.problems[p].iterations.back();
    bool found = false;
    for (const BeamMember& m : last.beam) {
      if (m.measured && m.measurement.correct && m.source_sha256 == rp["best"]["source_sha256"]) {
        found = true;
        BOOST_TEST(rp["best"]["latency_us"].get<double>() == m.measurement.latency_us);
      }
    }
    BOOST_TEST(found);
  }
}

// Nothing beat the baseline: the report says "none" and speedup 1, not the
// noise between the baseline's measurements.
BOOST_AUTO_TEST_CASE(no_correct_candidate_is_no_improvement_not_a_speedup) {
  DefaultRun r;
  Script script = MakeFaultyScript(r.world);
  auto evaluate = script.evaluate;
  script.evaluate = [evaluate](const ActivityRequest& a) {
    json result = evaluate(a);
    if (a.activity_id.find("/eval") != std::string::npos) {  // every candidate is wrong
      result["status"] = "wrong_result";
      result["correct"] = false;
    }
    if (a.activity_id.size() > 6 && a.activity_id.substr(a.activity_id.size() - 6) == "/final") {
      // The baseline measured again, 5% faster by chance.
      result["latency"]["median_us"] = result["latency"]["median_us"].get<double>() / 1.05;
    }
    return result;
  };
  r.Run(script);
  const json report = BuildReport(r.state);
  int none = 0;
  for (const json& rp : report["problems"]) {
    if (rp["best"]["candidate_id"] != "baseline") continue;
    ++none;
    BOOST_TEST(rp["improvement"] == kImprovementNone);
    BOOST_TEST(rp["speedup"].get<double>() == 1.0);
    BOOST_TEST(rp["best"]["latency_us"] == rp["baseline"]["latency_us"]);
    BOOST_TEST(rp["baseline"].contains("spread"));
  }
  BOOST_TEST(none > 0);
}

// The same slow->fast pair is summarized once per problem, and a summary
// with the content of an item already in memory is not added again.
BOOST_AUTO_TEST_CASE(pairs_and_items_are_not_duplicated_in_memory) {
  DefaultRun r;
  r.spec.search.T = 5;
  r.Run(MakeScript(r.world));
  std::map<int, std::set<std::string>> pairs, contents;
  int duplicate_pairs = 0, duplicate_items = 0, added = 0;
  for (const Event& e : r.log) {
    const int p = e.data.value("problem", -1);
    if (e.type == event_type::kMemoryPairsSelected) {
      for (const json& m : e.data["pairs"]) {
        const std::string key = m["kind"].get<std::string>() + "/" + m["slow_sha256"].get<std::string>() + "/" +
                                m["fast_sha256"].get<std::string>();
        BOOST_TEST(pairs[p].insert(key).second, "pair summarized twice: " << key);
      }
      duplicate_pairs += static_cast<int>(e.data.value("duplicates", json::array()).size());
    }
    if (e.type == event_type::kMemoryUpdated) {
      for (const json& m : e.data["added"]) {
        ++added;
        const std::string content = m["title"].get<std::string>() + "\n" + m["description"].get<std::string>();
        BOOST_TEST(contents[p].insert(content).second, "item added twice: " << m["title"]);
      }
      for (const json& d : e.data.value("dropped", json::array()))
        duplicate_items += d.value("reason", "") == "duplicate";
    }
  }
  BOOST_TEST(added > 0);
  // The script's summarizer knows two lessons only: the dedup had work to do.
  BOOST_TEST(duplicate_items > 0);
  BOOST_TEST_MESSAGE("duplicate pairs skipped: " << duplicate_pairs
                                                 << ", duplicate items dropped: " << duplicate_items);
}

BOOST_AUTO_TEST_CASE(identical_code_is_evaluated_once_and_reuse_is_recorded) {
  DefaultRun r;
  r.Run(MakeFaultyScript(r.world));
  BOOST_TEST(r.types[event_type::kEvaluationReused] > 0);
  // Per problem, no normalized code is evaluated twice as a candidate.
  std::map<std::string, std::string> source_of;  // activity -> source sha
  std::map<std::string, std::string> purpose_of;
  for (const Event& e : r.log) {
    if (e.type == event_type::kActivityScheduled && e.data["kind"] == "evaluation") {
      source_of[e.data["activity_id"]] = e.data["payload"]["source_sha256"];
      purpose_of[e.data["activity_id"]] = e.data["purpose"];
    }
  }
  std::set<std::pair<int, std::string>> evaluated;
  for (const Event& e : r.log) {
    if (e.type != event_type::kActivityScheduled || e.data["purpose"] != kPurposeEvaluate) continue;
    const std::string norm = NormalizedCodeSha256(r.Code(e.data["payload"]["source_sha256"].get<std::string>()));
    BOOST_TEST(evaluated.insert({e.data["problem"].get<int>(), norm}).second,
               "evaluated twice: " << e.data["activity_id"]);
  }
  int reused_fix = 0, reused_measure = 0;
  for (const Event& e : r.log) {
    if (e.type != event_type::kEvaluationReused) continue;
    const std::string from = e.data["reused_activity"];
    BOOST_REQUIRE(source_of.count(from));
    BOOST_TEST(NormalizedCodeSha256(r.Code(source_of[from])) == e.data["normalized_sha256"].get<std::string>());
    if (e.data["attempt"] == 1) ++reused_fix;
    if (purpose_of[from] == kPurposeMeasure) ++reused_measure;
  }
  // The fixed kernels equal the n0/k0 sample (other comments, spacing).
  BOOST_TEST(reused_fix > 0);
  // A child of the carried-over parent equals the leading beam member.
  BOOST_TEST(reused_measure > 0);
  const json report = BuildReport(r.state);
  BOOST_TEST(report["problems"][0]["candidates"]["reused"].get<int>() > 0);
}

BOOST_AUTO_TEST_CASE(failed_samples_go_to_the_fixer_with_the_truncated_error) {
  DefaultRun r;
  r.Run(MakeFaultyScript(r.world));
  int fixes = 0;
  for (const Event& e : r.log) {
    if (e.type != event_type::kActivityScheduled || e.data["purpose"] != kPurposeFix) continue;
    ++fixes;
    const std::string id = e.data["activity_id"];
    BOOST_TEST(id.find("/fix/b") != std::string::npos);
    BOOST_TEST(id.find("/n0/k1/f1") == id.size() - 9, id);
    BOOST_TEST(e.data["role"] == kRoleExecutor);
    BOOST_TEST(e.data["attempt"] == 1);
    const std::string user = r.Code(e.data["payload"]["user_sha256"].get<std::string>());
    BOOST_TEST(Mentions(user, "compile_error: expected ';'"));
    BOOST_TEST(Mentions(user, "END-OF-ERROR"));  // the tail is kept
    BOOST_TEST(Mentions(user, "bytes cut"));
    BOOST_TEST(user.find(std::string(kFixErrorBytes, 'x')) == std::string::npos);
    BOOST_TEST(Mentions(user, "BROKEN"));  // the failed rewrite is shown
  }
  // Every sample n0/k1 of every iteration and problem was fixed once.
  int broken = 0;
  for (const Event& e : r.log) {
    if (e.type == event_type::kCandidateProposed && e.data["plan"] == 0 && e.data["sample"] == 1) {
      ++broken;
    }
  }
  BOOST_TEST(fixes == broken);
  BOOST_TEST(r.types[event_type::kFixProposed] == fixes);
  const json report = BuildReport(r.state);
  for (const json& p : report["problems"]) {
    BOOST_TEST(p["candidates"]["fixed"].get<int>() > 0);
  }
}

BOOST_AUTO_TEST_CASE(fix_attempts_are_bounded_per_sample) {
  for (int F : {0, 2}) {
    DefaultRun r;
    r.spec.search.fix_attempts = F;
    Script script = MakeFaultyScript(r.world);
    auto llm = script.llm;
    script.llm = [llm](const ActivityRequest& a) {
      ScriptedReply reply = llm(a);
      if (a.activity_id.find("/fix/") != std::string::npos) {
        // The fixer never manages: a new broken variant each time.
        const std::string user = a.request.at("user").get<std::string>();
        const std::string fn = user.find("void gelu(") != std::string::npos ? "gelu" : "silu";
        reply.text = "```cpp\n// BROKEN\nint x = 1\nint attempt_" + a.activity_id.substr(a.activity_id.size() - 1) +
                     ";\nextern \"C\" void " + fn + "(const float* x, float* out, int64_t M, int64_t N) {}\n```\n";
      }
      return reply;
    };
    r.Run(script);
    BOOST_TEST(r.state.status == kStatusCompleted);
    std::map<std::string, int> per_sample;
    for (const Event& e : r.log) {
      if (e.type != event_type::kActivityScheduled || e.data["purpose"] != kPurposeFix) continue;
      const std::string id = e.data["activity_id"];
      ++per_sample[id.substr(0, id.rfind("/f"))];
      BOOST_TEST(e.data["attempt"].get<int>() <= F);
    }
    if (F == 0) {
      BOOST_TEST(per_sample.empty());
    } else {
      BOOST_TEST(!per_sample.empty());
      for (const auto& [sample, n] : per_sample) BOOST_TEST(n == F, sample);
    }
  }
}

BOOST_AUTO_TEST_CASE(used_experiences_are_credited_and_no_optimization_takes_no_room) {
  DefaultRun r;
  Script script = MakeFaultyScript(r.world);
  auto llm = script.llm;
  script.llm = [llm](const ActivityRequest& a) {
    ScriptedReply reply = llm(a);
    const std::string user = a.request.at("user").get<std::string>();
    if (a.role == kRoleSummarizer) {
      // The real speedup is given to the summarizer.
      BOOST_TEST(Mentions(user, "x faster than the slow one"));
      if (user.find("SLOW") != std::string::npos) reply.text = "No optimization found";
    }
    if (a.role == kRolePlanner) BOOST_TEST(Mentions(user, "Used experiences:"));
    return reply;
  };
  r.Run(script);
  int credits = 0, dropped = 0;
  std::set<std::string> used;
  for (const Event& e : r.log) {
    if (e.type == event_type::kPlanProposed && e.data.contains("used_experiences")) {
      for (const json& id : e.data["used_experiences"]) used.insert(id.get<std::string>());
      BOOST_TEST(e.data["description"].get<std::string>().find("Used experiences") == std::string::npos);
    }
    if (e.type == event_type::kExperiencesCredited) {
      for (const json& c : e.data["credits"]) {
        ++credits;
        BOOST_TEST(used.count(c["item_id"].get<std::string>()));
        BOOST_TEST(c["child_speedup"].get<double>() > 1.0);
      }
    }
    if (e.type == event_type::kMemoryUpdated) {
      dropped += static_cast<int>(e.data["dropped"].size());
      for (const json& m : e.data["added"]) BOOST_TEST(m["no_optimization"] == false);
    }
  }
  BOOST_TEST(!used.empty());
  BOOST_TEST(credits > 0);
  BOOST_TEST(dropped > 0);
  int credited_items = 0;
  for (const ProblemState& ps : r.state.problems) {
    for (const MemoryItem& m : ps.memory) {
      BOOST_TEST(!m.no_optimization);
      if (m.credit > 0) ++credited_items;
    }
  }
  BOOST_TEST(credited_items > 0);
}

BOOST_AUTO_TEST_CASE(the_beam_never_loses_the_best_kernel_so_far) {
  DefaultRun r;
  Script script = MakeFaultyScript(r.world);
  auto llm = script.llm;
  // From iteration 1 on, every executor sample is slower than its parent.
  script.llm = [llm](const ActivityRequest& a) {
    ScriptedReply reply = llm(a);
    if (a.role == kRoleExecutor && a.activity_id.find("/it0/") == std::string::npos) {
      const std::string user = a.request.at("user").get<std::string>();
      reply.text = "```cpp\n" + Kernel("silu", LevelOf(user) - 1) + "```\n";
      if (user.find("void gelu(") != std::string::npos) {
        reply.text = "```cpp\n" + Kernel("gelu", LevelOf(user) - 1) + "```\n";
      }
    }
    return reply;
  };
  r.Run(script);
  for (const ProblemState& ps : r.state.problems) {
    double best = 1e300;
    for (const IterationState& it : ps.iterations) {
      double beam_best = 1e300;
      for (const BeamMember& m : it.beam) beam_best = std::min(beam_best, m.latency_us());
      if (it.iteration > 0) BOOST_TEST(beam_best <= best * (1 + 1e-9));
      for (const CandidateRecord& c : it.candidates) {
        if (c.ok && c.evaluated && c.measurement.correct) {
          best = std::min(best, c.measurement.latency_us);
        }
      }
      best = std::min(best, beam_best);
    }
    // Level 1 (found in iteration 0) is the best and is the final best.
    BOOST_TEST(LevelOf(*r.blobs.Get(ps.final_best.source_sha256)) == 1);
  }
}

}  // namespace
}  // namespace accelopt::workflows::testing

namespace accelopt::workflows::testing {
namespace {

bool EndsWithText(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Replies cut at max_tokens (issue 37: what a small local model does on
// nearly every call): a whole kernel before the cut is used, a cut inside
// the kernel is truncated_code_block, a plan cut short is still a plan.
BOOST_AUTO_TEST_CASE(replies_cut_at_max_tokens_are_used_up_to_the_cut) {
  DefaultRun r;
  Script base = MakeFaultyScript(r.world);
  Script s = base;
  s.llm = [base](const ActivityRequest& a) {
    ScriptedReply reply = base.llm(a);
    const std::string id = a.activity_id;
    if (a.role == kRolePlanner) {
      return ScriptedReply{false, "", "truncated: reply cut off at max_tokens", reply.text};
    }
    if (a.role == kRoleExecutor && EndsWithText(id, "/n0/k0")) {
      // The kernel, then a test harness the cut falls in.
      return ScriptedReply{false, "", "truncated: reply cut off at max_tokens",
                           reply.text + "\nA test:\n```cpp\nint main() {\n  float x[4];\n"};
    }
    if (a.role == kRoleExecutor && EndsWithText(id, "/n1/k1") && reply.text.size() > 4) {
      // Cut inside the block, after the whole kernel: evaluated as it is.
      return ScriptedReply{false, "", "truncated: reply cut off at max_tokens",
                           reply.text.substr(0, reply.text.rfind("```"))};
    }
    if (a.role == kRoleExecutor && EndsWithText(id, "/n1/k0")) {
      return ScriptedReply{false, "", "truncated: reply cut off at max_tokens",
                           "Sure:\n```cpp\nextern \"C\" void f(const float* x,"};
    }
    return reply;
  };
  r.Run(s);
  BOOST_TEST(r.state.status == kStatusCompleted);
  int cut_used = 0, cut_unclosed = 0, cut_inside = 0, plans_cut = 0;
  for (const Event& e : r.log) {
    if (e.type == event_type::kPlanProposed && e.data.value("cut_at_max_tokens", false)) {
      BOOST_TEST(e.data["ok"] == true);
      ++plans_cut;
    }
    if (e.type != event_type::kCandidateProposed) continue;
    const std::string exec = e.data["executor_activity"];
    if (EndsWithText(exec, "/n0/k0")) {
      BOOST_TEST(e.data["ok"] == true);
      BOOST_TEST(e.data["detail"].get<std::string>().find("reply cut at max_tokens") == 0);
      ++cut_used;
    }
    if (EndsWithText(exec, "/n1/k0")) {
      BOOST_TEST(e.data["ok"] == false);
      BOOST_TEST(e.data["failure"] == kTruncatedCode);
      ++cut_unclosed;
    }
    if (EndsWithText(exec, "/n1/k1")) {
      BOOST_TEST(e.data["ok"] == true);
      BOOST_TEST(e.data["detail"].get<std::string>().find("inside its code block") != std::string::npos);
      ++cut_inside;
    }
  }
  BOOST_TEST(cut_inside > 0);
  BOOST_TEST(cut_used > 0);
  BOOST_TEST(cut_unclosed > 0);
  BOOST_TEST(plans_cut > 0);
  // The cut replies' kernels still drive the search: level T is reached.
  const json report = BuildReport(r.state);
  for (const json& p : report["problems"]) {
    BOOST_TEST(LevelOf(r.Code(p["best"]["source_sha256"].get<std::string>())) == r.spec.search.T);
  }
}

}  // namespace
}  // namespace accelopt::workflows::testing
