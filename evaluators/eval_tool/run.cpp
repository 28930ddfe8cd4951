// accelopt-eval run: evaluate one kernel with its problem's backend
// (tool_backends.hpp), optionally against a second one timed interleaved.
#include "evaluators/eval_tool/commands.hpp"

#include <iostream>
#include <memory>

#include "evaluators/eval_tool/common.hpp"
#include "evaluators/eval_tool/tool_backends.hpp"
#include "evaluators/problem.hpp"

namespace po = boost::program_options;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

namespace {

void PrintResultTable(const std::string& name, const EvalResult& r) {
  std::cout << "problem      " << name << "\n"
            << "status       " << EvalStatusName(r.status) << "\n"
            << "reason       " << r.reason << "\n";
  if (r.latency) {
    std::cout << "median       " << Fixed(r.latency->median_us, 2) << " us   (min " << Fixed(r.latency->min_us, 2)
              << ", mean " << Fixed(r.latency->mean_us, 2) << ", spread " << Fixed(100 * r.latency->spread, 2) << "%, "
              << r.latency->samples_us.size() << " samples, " << r.latency->rounds << " rounds)\n";
  }
  if (r.percent_of_peak)
    std::cout << "% of peak    " << Fixed(*r.percent_of_peak, 2) << "   (roofline " << Fixed(*r.peak_latency_us, 2)
              << " us)\n";
  if (r.max_rel_error) std::cout << "max rel err  " << *r.max_rel_error << "\n";
  if (r.comparison.is_object()) {
    const json& c = r.comparison;
    std::cout << "speedup      " << Fixed(c.value("speedup", 0.0), 3) << "x  (~95% interval "
              << Fixed(c.value("speedup_low", 0.0), 3) << " .. " << Fixed(c.value("speedup_high", 0.0), 3)
              << "x, against " << Fixed(c.value("baseline_median_us", 0.0), 2) << " us measured interleaved"
              << (c.value("noisy", false) ? "; NOISY: a spread stayed above the target" : "") << ")\n";
  }
  for (const auto& [k, v] : r.profile)
    std::cout << "  " << k << std::string(k.size() < 26 ? 26 - k.size() : 1, ' ') << v << "\n";
  std::cout << "timings      compile " << Fixed(r.timings.compile_s, 2) << " s, checks " << Fixed(r.timings.check_s, 2)
            << " s, run " << Fixed(r.timings.measure_s, 2) << " s, total " << Fixed(r.timings.total_s, 2) << " s\n";
  if (!r.error_text.empty()) std::cout << "---- error text ----\n" << r.error_text << "\n";
}

}  // namespace

int CmdRun(Env* env, const std::vector<std::string>& args) {
  Common c;
  c.env = env;
  BackendFlags flags;
  std::string problem, kernel, compare;
  po::options_description d("accelopt-eval run --problem DIR --kernel FILE [options]");
  AddCommon(d, c);
  d.add_options()("problem", po::value(&problem), "problem folder")("kernel", po::value(&kernel), "kernel source file")(
      "compare", po::value(&compare),
      "a second kernel (e.g. the problem's baseline.cpp) timed interleaved with --kernel: prints the speedup over it "
      "with a ~95% interval");
  AddRunFlags(d, flags);
  if (ParseShowingHelp(args, d)) return 0;
  if (problem.empty() || kernel.empty()) {
    std::cerr << d;
    return 2;
  }
  auto settings = MakeSettings(c);
  if (!settings.ok()) {
    std::cerr << "accelopt-eval: " << settings.status() << "\n";
    return 2;
  }
  auto source = env->ReadFile(kernel);
  if (!source.ok()) {
    std::cerr << "accelopt-eval: " << source.status() << "\n";
    return 2;
  }
  // A problem that cannot be loaded is refused before calibrating (which may
  // take seconds); the backend loads it again, the same way.
  auto loaded = LoadProblem(Under(c.root, problem).string(), env);
  if (!loaded.ok()) {
    std::cerr << "accelopt-eval: " << loaded.status().message() << "\n";
    return 3;
  }
  const ToolBackend* row = FindToolBackend(loaded->backend, "problem " + loaded->name);
  if (!row) return 3;
  if (!compare.empty() && !row->compare) {
    std::cerr << "accelopt-eval: --compare is not built for " << row->name << " problems\n";
    return 2;
  }
  EvalRequest req{"", row->name, Under(env->CurrentDir(), loaded->dir).string(), *source, *settings, ""};
  if (!compare.empty()) {
    auto other = env->ReadFile(compare);
    if (!other.ok()) {
      std::cerr << "accelopt-eval: " << other.status() << "\n";
      return 2;
    }
    req.compare_source = *other;
  }
  auto backend = row->make(env, c, flags);
  if (!backend.ok()) return MakerExit(backend.status());
  EvalResult r = (*backend)->Evaluate(req, nullptr);
  // Figures of the test-only stand-in (allowed by --allow-test-stand-in):
  // the first line says so (on stderr with -o json, whose stdout stays JSON;
  // the result's hardware says so there).
  if (IsTestStandIn(r.hardware)) {
    (c.output == "json" ? std::cerr : std::cout) << kTestStandInNotice << "\n";
  }
  if (c.output == "json")
    std::cout << Dump(r.ToJson(), 2) << "\n";
  else
    PrintResultTable(problem, r);
  if (r.status == EvalStatus::kInternalError) return 3;
  return r.status == EvalStatus::kOk ? 0 : 1;
}

}  // namespace accelopt::eval_tool
