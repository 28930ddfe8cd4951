// accelopt-eval: evaluate kernels by hand, each with its problem's backend
// (cpu, cuda, nki, triton: the table in tool_backends.hpp).
//
//   accelopt-eval calibrate [--backend cpu|cuda] [--force] [--force-busy]
//   accelopt-eval run --problem suites/cpu/silu --kernel my_silu.cpp [--compare baseline.cpp] [settings]
//                 (an nki problem: --nki-python P --nki-cores 0 ..., no --compare;
//                  a triton problem: --triton-python P)
//   accelopt-eval check --problem suites/cuda/adamw --kernel my_adamw.cu [--arch sm_90]   (no GPU)
//   accelopt-eval baseline suites/cpu [settings]
//   accelopt-eval suite suites/cpu suites/triton ...   (loads every problem; runs nothing)
//   accelopt-eval job --request request.json --result result.json   (a Slurm job's body)
//   accelopt-eval import nkibench PATH/TO/AccelOpt/NKIBench --out suites/nki [--force] [--dry-run]
//   accelopt-eval doctor nki [--python P] [--cores auto|0-31] [--runner-dir D] ...   (is this a Trainium host?)
//   accelopt-eval prompts --problem suites/cpu/silu --role planner|executor|summarizer
//                 [--mode default|paper] [--memory FILE] [--kernel FILE] [--result FILE]
//                 [--plan FILE] [--slow FILE --fast FILE --speedup X] [--calibration FILE]
//
// `prompts` prints the exact system and user prompt a campaign in that mode
// would send that role (workflows/prompt_preview.hpp); it calls no model and
// measures nothing (the hardware facts are the calibration file's).
//
// The calibration is <cache dir>/calibration.json, measured by the same
// procedure as the daemon's (calibration.hpp): refused on a busy machine
// unless --force-busy (calibrate, run and baseline accept it; run and
// baseline calibrate first when there is no calibration yet).
//
// Common options: -o table|json (default table), --cache-dir DIR (default
// $ACCELOPT_CACHE_DIR, else $XDG_CACHE_HOME/accelopt, else ~/.cache/accelopt),
// --root DIR (problem paths are relative to it; default "."), --compiler CXX.
// Settings: --timeout S, --min-time S, --max-rounds N, --threads N, --seeds 0,21,...,
// --settings JSON (any EvalSettings field, see docs/contracts.md).
//
// Messages go to stderr; tables or JSON to stdout. Exit codes:
//   0  success (run: the kernel is correct, status ok)
//   1  the kernel (or one of the baselines) failed; the result says why
//      (suite: a problem does not load)
//   2  usage error
//   3  internal error (calibration, unreadable problem, missing compiler)
//
// This file is the subcommand table; each subcommand has its own file
// (commands.hpp), the options and backends they share are common.hpp.
#include <boost/program_options.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "base/text.hpp"
#include "base/env.hpp"
#include "evaluators/eval_tool/commands.hpp"
#include "base/version.hpp"

using namespace accelopt;

namespace {

struct EvalToolCommand {
  const char* name;
  const char* synopsis;  // the usage line's first column
  const char* summary;
  int (*run)(Env* env, const eval_tool::Args& args);
};

// In the order of the usage text.
constexpr EvalToolCommand kEvalToolCommands[] = {
    {"calibrate", "calibrate", "measure peak FLOP/s and bandwidth (saved in the cache dir)", eval_tool::CmdCalibrate},
    {"run", "run", "evaluate one kernel: --problem DIR --kernel FILE", eval_tool::CmdRun},
    {"check", "check", "cuda: static checks and nvcc only: --problem DIR --kernel FILE.cu", eval_tool::CmdCheck},
    {"baseline", "baseline SUITE_DIR", "evaluate every problem's baseline.cpp", eval_tool::CmdBaseline},
    {"suite", "suite SUITE_DIR...", "load every problem of suites (problem.json, reference, baseline); runs nothing",
     eval_tool::CmdSuite},
    {"job", "job", "one evaluation as a Slurm job: --request FILE --result FILE", eval_tool::CmdJob},
    {"prompts", "prompts", "print the prompts a role gets: --problem DIR --role planner|executor|summarizer",
     eval_tool::CmdPrompts},
    {"import", "import nkibench PATH --out DIR", "NKIBench from an AccelOpt checkout as a suite of nki problems",
     eval_tool::CmdImport},
    {"doctor", "doctor nki", "check this host for the nki (Trainium) backend", eval_tool::CmdDoctor},
};

// "usage: ...", a line per command (synopsis padded to 21 columns, at least
// three spaces before the summary), then the pointer to each --help.
std::string EvalToolUsage() {
  std::string usage = "usage: accelopt-eval <command> [options]\n";
  for (const auto& c : kEvalToolCommands) {
    const std::string synopsis = c.synopsis;
    usage += "  " + synopsis + std::string(synopsis.size() < 18 ? 21 - synopsis.size() : 3, ' ') + c.summary + "\n";
  }
  return usage + "run 'accelopt-eval <command> --help' for options\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::string usage = EvalToolUsage();
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cerr << usage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "accelopt-eval " << accelopt::kVersion << "\n";
    return 0;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  Env* env = Env::Default();  // the one place accelopt-eval's Env is chosen
  try {
    for (const auto& c : kEvalToolCommands) {
      if (cmd == c.name) return c.run(env, args);
    }
  } catch (const boost::program_options::error& e) {
    std::cerr << "accelopt-eval: " << e.what() << "\n";
    return 2;
  }
  std::vector<std::string> names;
  for (const auto& c : kEvalToolCommands) names.push_back(c.name);
  const std::string near = ClosestMatch(cmd, names);
  std::cerr << "accelopt-eval: unknown command '" << cmd << "'"
            << (near.empty() ? "" : "; did you mean '" + near + "'?") << "\n"
            << usage;
  return 2;
}
