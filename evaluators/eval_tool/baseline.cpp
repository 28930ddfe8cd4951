// accelopt-eval baseline: evaluate every problem's baseline of a suite (the
// table acceloptctl baseline prints too, base/baseline_table.hpp).
#include "evaluators/eval_tool/commands.hpp"

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "base/baseline_table.hpp"
#include "evaluators/eval_tool/common.hpp"
#include "evaluators/eval_tool/tool_backends.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/suites.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

int CmdBaseline(Env* env, const std::vector<std::string>& args) {
  Common c;
  c.env = env;
  std::string suite;
  po::options_description d("accelopt-eval baseline SUITE_DIR [options]");
  AddCommon(d, c);
  d.add_options()("suite", po::value(&suite), "suite folder (e.g. suites/cpu)");
  BackendFlags flags;
  AddRunFlags(d, flags);
  po::positional_options_description pos;
  pos.add("suite", 1);
  if (ParseShowingHelp(args, d, &pos)) return 0;
  if (suite.empty()) {
    std::cerr << d;
    return 2;
  }
  auto settings = MakeSettings(c);
  if (!settings.ok()) {
    std::cerr << "accelopt-eval: " << settings.status() << "\n";
    return 2;
  }
  auto dirs = ListProblemDirs(Under(c.root, suite).string(), env);
  if (!dirs.ok()) {
    std::cerr << "accelopt-eval: " << dirs.status() << "\n";
    return 2;
  }
  // The suite's backend: the one its problems name (one per suite).
  std::string backend_name;
  for (const auto& dir : *dirs) {
    auto p = LoadProblem(dir, env);
    if (!p.ok()) continue;
    if (!backend_name.empty() && p->backend != backend_name) {
      std::cerr << "accelopt-eval: " << suite << " mixes " << backend_name << " and " << p->backend
                << " problems; a suite has one backend\n";
      return 2;
    }
    backend_name = p->backend;
  }
  const ToolBackend* row = FindToolBackend(backend_name.empty() ? "cpu" : backend_name, suite);
  if (!row) return 3;
  auto made = row->make(env, c, flags);
  if (!made.ok()) return MakerExit(made.status());
  Backend& backend = **made;
  json all = json::array();
  int failures = 0;
  std::vector<double> percents;
  if (c.output != "json") std::cout << baseline_table::HeaderLine() << std::flush;  // acceloptctl baseline's too
  for (const auto& dir : *dirs) {
    auto problem = LoadProblem(dir, env);
    std::string name = fs::path(dir).filename().string();
    EvalResult r;
    if (!problem.ok()) {
      r = EvalResult::Failure(EvalStatus::kInternalError, problem.status().message());
    } else {
      auto src = env->ReadFile(problem->baseline_path);
      EvalRequest req{"", backend.name(), Under(env->CurrentDir(), dir).string(), src.ok() ? *src : "", *settings, ""};
      r = backend.Evaluate(req, nullptr);
    }
    if (r.status != EvalStatus::kOk) ++failures;
    if (r.percent_of_peak && *r.percent_of_peak > 0) percents.push_back(*r.percent_of_peak);
    if (c.output == "json") {
      all.push_back({{"problem", name}, {"result", r.ToJson()}});
    } else {
      std::cout << baseline_table::RowLine({name, EvalStatusName(r.status),
                                            r.latency ? std::optional(r.latency->median_us) : std::nullopt,
                                            r.latency ? std::optional(r.latency->spread) : std::nullopt,
                                            r.percent_of_peak, problem.ok() ? problem->bound : "?",
                                            r.status == EvalStatus::kOk ? "" : r.reason.substr(0, 100)})
                << std::flush;
    }
  }
  double geo = 0;
  for (double p : percents) geo += std::log(p);
  geo = percents.empty() ? 0 : std::exp(geo / percents.size());
  if (c.output == "json")
    std::cout << Dump({{"problems", all}, {"geomean_percent_of_peak", geo}}, 2) << "\n";
  else
    std::cout << baseline_table::GeomeanLine(percents);
  return failures ? 1 : 0;
}

}  // namespace accelopt::eval_tool
