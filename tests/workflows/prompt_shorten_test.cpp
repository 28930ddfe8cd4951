// ShortenPrompt on the prompts as rendered (the golden inputs of
// golden_prompts_test.cpp): what a call over the context window leaves out
// when it is sent once more.
#include <boost/test/unit_test.hpp>

#include "base/env.hpp"
#include "workflows/memory_bank.hpp"
#include "workflows/prompt_preview.hpp"
#include "workflows/prompt_shorten.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
// Named (not anonymous): the unity build puts this file beside others with
// helpers of the same names.
namespace prompt_shorten_impl {

const std::string kShortenRoot = ACCELOPT_SOURCE_DIR;

std::string ReadText(const std::string& path) {
  auto text = Env::Default()->ReadFile(path);
  BOOST_REQUIRE_MESSAGE(text.ok(), text.status().ToString());
  return *text;
}

PromptPreview SiluPreview(PromptMode mode) {
  const std::string golden = kShortenRoot + "/tests/workflows/golden/";
  const std::string dir = kShortenRoot + "/suites/cpu/silu";
  PromptPreview in;
  in.source.id = "suites/cpu/silu";
  in.source.problem = *ReadJsonFile(dir + "/problem.json");
  in.source.reference = ReadText(dir + "/reference.cpp");
  in.source.baseline = ReadText(dir + "/baseline.cpp");
  in.hardware = *ReadJsonFile(golden + "calibration.json");
  in.profile = (*ReadJsonFile(golden + "silu.result.json"))["profile"];
  auto memory = ParseImport(*ReadJsonFile(kShortenRoot + "/tests/workflows/data/accelopt_experience_list.json"), "auto",
                            "golden");
  BOOST_REQUIRE(memory.ok());
  in.memory = *memory;
  in.mode = mode;
  return in;
}

BOOST_AUTO_TEST_CASE(a_planner_prompt_loses_its_memory_and_profile_and_keeps_its_task) {
  for (PromptMode mode : {PromptMode::kDefault, PromptMode::kPaper}) {
    auto full = RenderRolePrompt("planner", SiluPreview(mode));
    BOOST_REQUIRE(full.ok());
    BOOST_REQUIRE(Mentions(full->system, "\n# Experiences\n"));
    BOOST_REQUIRE(Mentions(full->user, "\n## Profile of the current kernel\n"));
    auto s = ShortenPrompt(*full);
    BOOST_REQUIRE(s.has_value());
    BOOST_TEST((s->trimmed == std::vector<std::string>{"memory", "profile"}));
    BOOST_TEST(s->prompt.bytes() < full->bytes());
    BOOST_TEST(Mentions(s->prompt.system, "# Experiences\n(left out: the prompt was over the model's context window)"));
    BOOST_TEST(s->prompt.system.find("# Profile fields") == std::string::npos);
    BOOST_TEST(s->prompt.user.find("Where the current kernel stands") == std::string::npos);
    BOOST_TEST(s->prompt.user.find("avg_cores_busy") == std::string::npos);
    // What the call cannot do without stays: the rules, the hardware, the
    // planning guidance, the problem, the kernel and the task.
    BOOST_TEST(Mentions(s->prompt.system, "# Hardware ("));
    BOOST_TEST(Mentions(s->prompt.system, "How to plan:"));
    BOOST_TEST(Mentions(s->prompt.user, "## Current kernel"));
    BOOST_TEST(Mentions(s->prompt.user, "\n# Task\n"));
    // Once shortened, there is nothing more of this kind to leave out.
    BOOST_TEST(!ShortenPrompt(s->prompt).has_value());
  }
}

BOOST_AUTO_TEST_CASE(an_executor_prompt_loses_its_hardware_sheet_and_a_summary_nothing) {
  auto exec = RenderRolePrompt("executor", SiluPreview(PromptMode::kDefault));
  BOOST_REQUIRE(exec.ok());
  auto s = ShortenPrompt(*exec);
  BOOST_REQUIRE(s.has_value());
  BOOST_TEST((s->trimmed == std::vector<std::string>{"hardware"}));
  BOOST_TEST(s->prompt.bytes() < exec->bytes());
  BOOST_TEST(Mentions(s->prompt.user, "\n# Task\n"));
  BOOST_TEST(Mentions(s->prompt.user, "## Plan"));
  BOOST_TEST(!ShortenPrompt(s->prompt).has_value());
  auto summary = RenderRolePrompt("summarizer", SiluPreview(PromptMode::kDefault));
  BOOST_REQUIRE(summary.ok());
  BOOST_TEST(!ShortenPrompt(*summary).has_value());
}

}  // namespace prompt_shorten_impl
}  // namespace accelopt::workflows::testing
