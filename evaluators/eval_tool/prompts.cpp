// accelopt-eval prompts: the exact prompts a role gets (workflows/prompt_preview.hpp);
// calls no model, measures nothing.
#include "evaluators/eval_tool/commands.hpp"

#include <iostream>
#include <utility>

#include "evaluators/eval_tool/common.hpp"
#include "evaluators/eval_tool/tool_backends.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/suites.hpp"
#include "workflows/memory_bank.hpp"
#include "workflows/prompt_preview.hpp"

namespace po = boost::program_options;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

int CmdPrompts(Env* env, const std::vector<std::string>& args) {
  std::string problem, role, mode = "default", memory, kernel, result, plan, slow, fast, calibration;
  std::string cache_dir, root = ".";
  BackendFlags flags;
  double speedup = 0;
  uint64_t seed = 1;
  po::options_description d(
      "accelopt-eval prompts --problem DIR --role planner|executor|summarizer [options]\n"
      "Prints the exact prompts (system, then user) a campaign would send that role; calls no model");
  d.add_options()("help,h", "this help")("problem", po::value(&problem),
                                         "problem folder (problem.json, reference.cpp, baseline.cpp)")(
      "role", po::value(&role), "planner | executor | summarizer")("mode", po::value(&mode)->default_value("default"),
                                                                   "default | paper (the campaign's mode)")(
      "memory", po::value(&memory), "planner: a bank export (memory export) or an AccelOpt experience list")(
      "kernel", po::value(&kernel), "the current kernel (default: the problem's baseline.cpp)")(
      "result", po::value(&result),
      "planner: an evaluation result of the current kernel ('accelopt-eval run -o json'); its profile is shown")(
      "plan", po::value(&plan), "executor: a file with the plan (first line the title)")(
      "slow", po::value(&slow), "summarizer: the slow kernel (default: the baseline)")(
      "fast", po::value(&fast), "summarizer: the fast kernel (default: --kernel)")(
      "speedup", po::value(&speedup), "summarizer: slow / fast latency (default mode shows it; paper never does)")(
      "calibration", po::value(&calibration),
      "the hardware facts (default: <cache dir>/calibration.json; an nki problem: the generation's)")(
      "nki-generation", po::value(&flags.nki_generation)->default_value(flags.nki_generation),
      "an nki problem: trn1 | trn2 | trn3")("cache-dir", po::value(&cache_dir),
                                            "cache folder of 'accelopt-eval calibrate'")(
      "root", po::value(&root)->default_value("."), "folder problem paths are relative to")(
      "seed", po::value(&seed)->default_value(1), "seed of the planner's profile order");
  if (ParseShowingHelp(args, d)) return 0;
  if (problem.empty() || role.empty()) {
    std::cerr << d;
    return 2;
  }
  if (mode != "default" && mode != "paper") {
    std::cerr << "accelopt-eval: --mode must be default or paper\n";
    return 2;
  }
  auto fail = [](const Status& st, int code) {
    std::cerr << "accelopt-eval: " << st.message() << "\n";
    return code;
  };
  workflows::PromptPreview in;
  in.mode = workflows::PromptModeOf(mode);
  in.seed = seed;
  auto src = LoadProblemSource(Under(root, problem).string(), problem, env);
  if (!src.ok()) return fail(src.status(), 2);
  in.source = std::move(*src);
  // The hardware facts as the daemon hands them to campaigns, by the
  // problem's backend (tool_backends.hpp).
  const ToolBackend* row = FindToolBackend(in.source.problem.value("backend", "cpu"), "problem " + problem);
  if (!row) return 2;
  if (calibration.empty()) {
    calibration = row->facts_file(cache_dir.empty() ? DefaultCacheDir(env) : cache_dir);
  }
  auto hw = row->facts(env, calibration, flags);
  if (!hw.ok()) {
    return fail(hw.status().WithContext("the hardware facts (run 'accelopt-eval calibrate' or pass --calibration)"), 3);
  }
  in.hardware = std::move(*hw);
  auto text = [&](const std::string& path, std::string* out) {
    if (path.empty()) return Status::Ok();
    auto t = env->ReadFile(path);
    if (!t.ok()) return t.status();
    *out = std::move(*t);
    return Status::Ok();
  };
  std::string plan_text;
  for (auto [path, out] : {std::pair{kernel, &in.kernel}, {slow, &in.slow}, {fast, &in.fast}, {plan, &plan_text}}) {
    if (Status st = text(path, out); !st.ok()) return fail(st, 2);
  }
  if (!plan_text.empty()) {
    auto parsed = workflows::ParsePlannerReply(plan_text);
    if (!parsed.ok()) return fail(parsed.status().WithContext(plan), 2);
    in.plan = *parsed;
  }
  if (!result.empty()) {
    auto r = ReadJsonFile(env, result);
    if (!r.ok()) return fail(r.status(), 2);
    in.profile = r->is_object() && r->contains("profile") ? (*r)["profile"] : json::object();
  }
  if (!memory.empty()) {
    auto doc = ReadJsonFile(env, memory);
    if (!doc.ok()) return fail(doc.status(), 2);
    auto items = workflows::ParseImport(*doc, "auto", "file");
    if (!items.ok()) return fail(items.status().WithContext(memory), 2);
    in.memory = std::move(*items);
  }
  if (speedup > 0) in.speedup = speedup;
  auto prompt = workflows::RenderRolePrompt(role, in);
  if (!prompt.ok()) return fail(prompt.status(), 2);
  std::cout << workflows::FormatChatPrompt(*prompt);
  return 0;
}

}  // namespace accelopt::eval_tool
