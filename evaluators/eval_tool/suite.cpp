// accelopt-eval suite: loads every problem of suite folders as a campaign
// and an evaluation do (evaluators/suites.hpp, evaluators/problem.hpp);
// compiles, runs and measures nothing. For people adding problems, and for
// the install test (tests/install/): a suite whose files were not all
// installed fails here.
#include "evaluators/eval_tool/commands.hpp"

#include <iostream>

#include "evaluators/eval_tool/common.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/suites.hpp"

namespace po = boost::program_options;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

int CmdSuite(Env* env, const std::vector<std::string>& args) {
  std::vector<std::string> suites;
  std::string root = ".";
  po::options_description d(
      "accelopt-eval suite SUITE_DIR... [options]\n"
      "Loads every problem of each suite folder: problem.json by the one parser, the reference and the baseline "
      "(the files its backend names); prints a line per problem. Exit 0 when every problem loads, 1 otherwise");
  d.add_options()("help,h", "this help")("suite", po::value(&suites), "suite folder (e.g. suites/cpu)")(
      "root", po::value(&root)->default_value("."), "folder suite paths are relative to");
  po::positional_options_description pos;
  pos.add("suite", -1);
  if (ParseShowingHelp(args, d, &pos)) return 0;
  if (suites.empty()) {
    std::cerr << d;
    return 2;
  }
  int problems = 0, failures = 0;
  for (const std::string& suite : suites) {
    const std::string dir = Under(root, suite).string();
    auto dirs = ListProblemDirs(dir, env);
    if (!dirs.ok()) {
      std::cerr << "accelopt-eval: " << suite << ": " << dirs.status().message() << "\n";
      ++failures;
      continue;
    }
    if (dirs->empty()) {
      std::cerr << "accelopt-eval: " << suite << ": no problem folder (none holds a problem.json)\n";
      ++failures;
    }
    for (const std::string& pdir : *dirs) {
      ++problems;
      // The campaign's view (problem.json, reference and baseline texts),
      // then the evaluation's (the paths its backend reads).
      auto source = LoadProblemSource(pdir, pdir, env);
      Status st = source.status();
      std::string backend;
      if (st.ok()) {
        auto p = LoadProblem(pdir, env);
        st = p.status();
        if (p.ok()) backend = p->backend;
      }
      if (st.ok()) {
        std::cout << pdir << ": " << backend << " ok\n";
      } else {
        // The messages name the folder or its file already, most of them.
        const bool named = st.message().rfind(pdir, 0) == 0;
        std::cout << (named ? "" : pdir + ": ") << st.message() << "\n";
        ++failures;
      }
    }
  }
  std::cout << problems << " problem(s), " << failures << " failed\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace accelopt::eval_tool
