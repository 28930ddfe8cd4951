// The fold: event registry, loud errors on unknown or contradictory events,
// prompts and deterministic randomness.
#include <boost/test/unit_test.hpp>

#include <set>

#include "workflows/prompts.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

BOOST_AUTO_TEST_CASE(every_event_type_is_registered_once_and_folds) {
  std::set<std::string> names;
  for (const auto& t : CampaignEventTypes()) {
    BOOST_TEST(names.insert(t.name).second);
    BOOST_TEST(t.schema_version == 1);
  }
  // Every type a simulated run appends is registered.
  const World world = MakeWorld();
  Sim sim(SmallSpec(world), MakeScript(world), 1);
  REQUIRE_OK(sim.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(sim.RunToEnd());
  for (const Event& e : sim.log()) BOOST_TEST(IsCampaignEventType(e.type), e.type);
  BOOST_TEST(CampaignStream("c1") == "campaign-c1");
}

BOOST_AUTO_TEST_CASE(unknown_or_contradictory_events_are_loud) {
  const World world = MakeWorld();
  Sim sim(SmallSpec(world), MakeScript(world), 1);
  REQUIRE_OK(sim.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(sim.RunToEnd());
  const std::vector<Event>& log = sim.log();

  CampaignState st;
  BOOST_TEST(Apply(st, Event{"SomethingHappened", json::object()}).code() == Code::kCorruption);
  BOOST_TEST(Apply(st, log[1]).code() == Code::kCorruption);  // before CampaignStarted
  Event future = log[0];
  future.schema_version = 2;
  BOOST_TEST(Apply(st, future).code() == Code::kCorruption);

  // A completion applied twice, or for an unknown activity.
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i].type != event_type::kLlmCallCompleted) continue;
    auto prefix = Fold(std::vector<Event>(log.begin(), log.begin() + i + 1));
    BOOST_REQUIRE(prefix.ok());
    CampaignState twice = *prefix;
    BOOST_TEST(Apply(twice, log[i]).code() == Code::kCorruption);
    Event other = log[i];
    other.data["activity_id"] = "c1/nosuch";
    BOOST_TEST(Apply(twice, other).code() == Code::kCorruption);
    Event malformed = log[i];
    malformed.data.erase("response_sha256");
    malformed.data["activity_id"] = "x";
    BOOST_TEST(Apply(twice, malformed).code() == Code::kCorruption);
    break;
  }
  // The full log folds to the live state.
  auto folded = Fold(log);
  BOOST_REQUIRE(folded.ok());
  BOOST_TEST(folded->events_applied == static_cast<int64_t>(log.size()));
  BOOST_TEST(folded->status == sim.state().status);
  // Nothing may follow a terminal event except late completions.
  CampaignState done = *folded;
  BOOST_TEST(Apply(done, CampaignCancelledEvent("late")).code() == Code::kCorruption);
}

BOOST_AUTO_TEST_CASE(rng_is_deterministic_per_seed_and_key) {
  Rng a(3, "k"), b(3, "k"), c(4, "k"), d(3, "k2");
  const uint64_t x = a.NextU64();
  BOOST_TEST(x == b.NextU64());
  BOOST_TEST(x != c.NextU64());
  BOOST_TEST(x != d.NextU64());
  Rng e(9, "u");
  for (int i = 0; i < 1000; ++i) BOOST_TEST(e.Uniform(7) < 7u);
  auto s = Rng(1, "s").Sample(5, 9);
  BOOST_TEST(std::set<size_t>(s.begin(), s.end()).size() == 5u);
}

// nki kernels and references are Python: fenced as python, and the executor
// and fixer are asked for a top-level def, not for a C declaration.
BOOST_AUTO_TEST_CASE(nki_prompts_ask_for_a_python_def) {
  const World world = MakeWorld();
  ProblemSource src = world.sources[0];
  src.problem["backend"] = "nki";
  src.problem["function"] = "kernel";
  src.baseline = "import neuronxcc.nki as nki\n\n\n@nki.jit\ndef kernel(x):\n    return x\n";
  src.reference = "import numpy as np\n\n\ndef forward(x):\n    return x\n";
  auto info = DescribeProblem(src);
  BOOST_REQUIRE(info.ok());
  KernelContext ctx{*info, world.hardware, src.reference, src.baseline};
  for (const ChatPrompt& p : {ExecutorPrompt(ctx, Plan{"Tile it", ""}),
                              FixPrompt(ctx, Plan{"Tile it", ""}, src.baseline, "compile_error", "no", "")}) {
    BOOST_TEST(Mentions(p.user, "```python\n" + src.baseline + "```\n"));
    BOOST_TEST(Mentions(p.user, "```python\n" + src.reference + "```\n"));
    BOOST_TEST(Mentions(p.user, "one fenced ```python code block"));
    BOOST_TEST(Mentions(p.user, "It must define:\n```python\n@nki.jit\ndef kernel(...):"));
    BOOST_TEST(p.user.find("extern \"C\"") == std::string::npos);
    BOOST_TEST(p.user.find("```cpp") == std::string::npos);
  }
  ChatPrompt s = SummarizerPrompt(*info, src.baseline, src.baseline, 1.5);
  BOOST_TEST(Mentions(s.user, "## Slow kernel\n```python\n"));
  BOOST_TEST(s.user.find("```cpp") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(prompts_carry_what_each_agent_needs) {
  const World world = MakeWorld();
  auto info = DescribeProblem(world.sources[0]);
  BOOST_REQUIRE(info.ok());
  const std::string kernel = Kernel("silu", 2);
  KernelContext ctx{*info, world.hardware, world.sources[0].reference, kernel};
  MemoryItem item;
  item.title = "Fuse the passes";
  item.kind = kPositive;
  item.description = "One pass instead of two.";
  item.fast_snippet = "fused();";
  item.pair.speedup = 1.8;
  json profile = {{"bytes", 100},    {"flops", 200},          {"arithmetic_intensity", 2}, {"achieved_gflops", 0.04},
                  {"latency_us", 5}, {"avg_cores_busy", 1.5}, {"roofline_compute_us", 1},  {"roofline_memory_us", 2},
                  {"spill_bytes", 0}};
  Rng r1(1, "c/p0/it1/plan/b0/n0");
  ChatPrompt plan = PlannerPrompt(ctx, profile, {item}, r1);
  BOOST_TEST(Mentions(plan.system, "# Experiences"));
  BOOST_TEST(Mentions(plan.system, "Fuse the passes"));
  BOOST_TEST(Mentions(plan.system, "AVX-512"));  // hardware facts
  // The cpu judge's real rules, not "only what the baseline uses".
  BOOST_TEST(plan.system.find("Only use APIs") == std::string::npos);
  BOOST_TEST(Mentions(plan.system, "OpenMP"));
  BOOST_TEST(Mentions(plan.system, "<immintrin.h>"));
  BOOST_TEST(Mentions(plan.system, "-O3 -march=native -fopenmp"));
  BOOST_TEST(Mentions(plan.system, "precision"));
  BOOST_TEST(Mentions(plan.system, "- avg_cores_busy: "));  // glossary
  BOOST_TEST(Mentions(plan.system, "2e-05"));               // the problem's tolerance
  BOOST_TEST(Mentions(plan.user, kernel));
  BOOST_TEST(Mentions(plan.user, world.sources[0].reference));
  BOOST_TEST(Mentions(plan.user, info->signature));
  BOOST_TEST(Mentions(plan.user, "- avg_cores_busy: 1.5"));
  BOOST_TEST(plan.user.find("spill_bytes") == std::string::npos);  // not a cpu field
  // Default mode shows where the kernel stands: 200 flops / 0.04 GFLOP/s = 5 us.
  BOOST_TEST(Mentions(plan.user, "- latency_us: 5\n"));
  BOOST_TEST(Mentions(plan.user, "- percent_of_peak: 40\n"));
  // Paper mode: the published profile (displayed_profiles.json @47e29a7):
  // the latency in ms among the shuffled fields and the utilization fields,
  // but not our "where it stands" section.
  KernelContext paper_ctx{*info, world.hardware, world.sources[0].reference, kernel, PromptMode::kPaper};
  Rng rp(1, "c/p0/it1/plan/b0/n0");
  json paper_profile = profile;
  paper_profile[kPaperLatencyKey] = 0.005;
  ChatPrompt paper_plan = PlannerPrompt(paper_ctx, paper_profile, {item}, rp);
  for (const char* hidden : {"latency_us", "percent_of_peak", "Where the current kernel stands"}) {
    BOOST_TEST_INFO(hidden);
    BOOST_TEST(paper_plan.user.find(hidden) == std::string::npos);
  }
  BOOST_TEST(Mentions(paper_plan.user, "- latency: 0.005\n"));
  BOOST_TEST(Mentions(paper_plan.system, "- latency: the kernel's measured time of one call, in milliseconds"));
  BOOST_TEST(Mentions(paper_plan.user, "- avg_cores_busy: 1.5"));
  // Paper mode's planner guidance is the published template's six points
  // (planner_prompt_template.txt:6-12 @47e29a7), not our backend's own, and
  // its task adds nothing the template lacks.
  BOOST_TEST(Mentions(paper_plan.system, "5. Use only what the rules above allow"));
  BOOST_TEST(Mentions(paper_plan.system, "6. Do not lower the numeric precision"));
  BOOST_TEST(paper_plan.system.find(BackendPromptsFor("cpu").planning) == std::string::npos);
  BOOST_TEST(paper_plan.user.find("Do not write the full kernel") == std::string::npos);
  BOOST_TEST(Mentions(plan.system, BackendPromptsFor("cpu").planning));
  BOOST_TEST(Mentions(plan.user, "Do not write the full kernel"));
  BOOST_TEST(Mentions(BackendPromptsFor("nki").api_rule, "existing NKI APIs"));
  // The profile order is shuffled by the activity id, deterministically.
  Rng r1b(1, "c/p0/it1/plan/b0/n0");
  BOOST_TEST(PlannerPrompt(ctx, profile, {item}, r1b).user == plan.user);
  bool differs = false;
  for (int n = 1; n < 6 && !differs; ++n) {
    Rng rn(1, "c/p0/it1/plan/b0/n" + std::to_string(n));
    differs = PlannerPrompt(ctx, profile, {item}, rn).user != plan.user;
  }
  BOOST_TEST(differs);

  ChatPrompt exec = ExecutorPrompt(ctx, Plan{"Tile it", "Blocks of 64."});
  BOOST_TEST(Mentions(exec.user, "Tile it"));
  BOOST_TEST(Mentions(exec.user, kernel));
  BOOST_TEST(Mentions(exec.user, info->signature));
  BOOST_TEST(exec.system.find("Experiences") == std::string::npos);   // no memory
  BOOST_TEST(exec.user.find("avg_cores_busy") == std::string::npos);  // no profile
  BOOST_TEST(Mentions(exec.system, "__restrict"));                    // the pitfalls sheet

  ChatPrompt summ = SummarizerPrompt(*info, "slow()", "fast()", 1.2345);
  BOOST_TEST(Mentions(summ.user, "1.234x faster"));
  // Paper mode: the speedup is left out, as in the published code.
  ChatPrompt paper = SummarizerPrompt(*info, "slow()", "fast()", std::nullopt);
  BOOST_TEST(paper.user.find("x faster") == std::string::npos);
  BOOST_TEST(Mentions(paper.user, "slow()"));
  BOOST_TEST(Mentions(summ.user, "No optimization found"));
  // "No optimization found" only for identical kernels in paper mode, as
  // published (summarizer_prompts/base_prompt.txt:4 @47e29a7).
  BOOST_TEST(Mentions(summ.user, "do not differ in any meaningful optimization"));
  ChatPrompt paper_rule = SummarizerPrompt(*info, "slow()", "fast()", std::nullopt, PromptMode::kPaper);
  BOOST_TEST(Mentions(paper_rule.user, "If the two kernels are identical, reply only \"No optimization found\"."));
  BOOST_TEST(paper_rule.user.find("meaningful") == std::string::npos);
}

}  // namespace
}  // namespace accelopt::workflows::testing
