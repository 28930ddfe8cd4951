// The rendered cpu prompts against the snapshots in tests/workflows/golden/
// (see its README.md): every change to a prompt is visible in review.
#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include "base/env.hpp"
#include "workflows/memory_bank.hpp"
#include "workflows/prompt_preview.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

const std::string kRoot = ACCELOPT_SOURCE_DIR;
const std::string kGolden = kRoot + "/tests/workflows/golden/";

std::string Read(const std::string& path) {
  auto text = Env::Default()->ReadFile(path);
  BOOST_REQUIRE_MESSAGE(text.ok(), text.status().ToString());
  return *text;
}

json ReadJson(const std::string& path) {
  auto j = ReadJsonFile(path);
  BOOST_REQUIRE_MESSAGE(j.ok(), j.status().ToString());
  return *j;
}

// The first line where `a` and `b` differ, for the failure message.
std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t line = 1, i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) {
    if (a[i] == '\n') ++line;
    ++i;
  }
  auto line_at = [](const std::string& s, size_t pos) {
    const size_t start = s.rfind('\n', pos == 0 ? 0 : pos - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    return s.substr(from, s.find('\n', from) - from);
  };
  return "line " + std::to_string(line) + ":\n  golden:   " + line_at(a, i) + "\n  rendered: " + line_at(b, i);
}

BOOST_AUTO_TEST_CASE(golden_cpu_prompts_are_unchanged) {
  const char* update_env = std::getenv("ACCELOPT_UPDATE_GOLDEN");
  const bool update = update_env && std::string(update_env) == "1";
  const json hardware = ReadJson(kGolden + "calibration.json");
  auto memory = ParseImport(ReadJson(kRoot + "/tests/workflows/data/accelopt_experience_list.json"), "auto", "golden");
  BOOST_REQUIRE(memory.ok());
  auto plan = ParsePlannerReply(Read(kGolden + "plan.txt"));
  BOOST_REQUIRE(plan.ok());
  int compared = 0;
  for (const std::string problem : {"silu", "matmul"}) {
    const std::string dir = kRoot + "/suites/cpu/" + problem;
    PromptPreview in;
    in.source.id = "suites/cpu/" + problem;
    in.source.problem = ReadJson(dir + "/problem.json");
    in.source.reference = Read(dir + "/reference.cpp");
    in.source.baseline = Read(dir + "/baseline.cpp");
    in.hardware = hardware;
    in.profile = ReadJson(kGolden + problem + ".result.json")["profile"];
    in.memory = *memory;
    in.plan = *plan;
    in.fast = Read(kGolden + problem + ".fast.cpp");
    in.speedup = 2.5;
    for (const auto& [mode_name, mode] : {std::pair{"default", PromptMode::kDefault}, {"paper", PromptMode::kPaper}}) {
      in.mode = mode;
      for (const std::string role : {"planner", "executor", "summarizer"}) {
        auto prompt = RenderRolePrompt(role, in);
        BOOST_REQUIRE_MESSAGE(prompt.ok(), prompt.status().ToString());
        const std::string rendered = FormatChatPrompt(*prompt);
        const std::string path = kGolden + problem + "." + role + "." + mode_name + ".txt";
        if (update) {
          REQUIRE_OK(Env::Default()->WriteFileAtomic(path, rendered));
          continue;
        }
        auto golden = Env::Default()->ReadFile(path);
        BOOST_TEST_INFO(path);
        BOOST_TEST_REQUIRE(golden.ok(), "missing snapshot; create it with ACCELOPT_UPDATE_GOLDEN=1");
        BOOST_TEST(*golden == rendered, "the " << role << " prompt (" << mode_name << ", " << problem << ") changed at "
                                               << FirstDifference(*golden, rendered)
                                               << "\nIf the change is intended, review it and update the snapshots:\n"
                                                  "  ACCELOPT_UPDATE_GOLDEN=1 build/tests/workflows/workflows_test "
                                                  "--run_test=golden_cpu_prompts_are_unchanged");
        ++compared;
      }
    }
  }
  BOOST_TEST((update || compared == 12));
}

}  // namespace
}  // namespace accelopt::workflows::testing
