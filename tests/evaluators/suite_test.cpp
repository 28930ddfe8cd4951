// Every baseline under suites/cpu/ passes its own problem. Iterates over
// whatever problem folders exist, so it passes while the suite is filling.
#define BOOST_TEST_MODULE evaluators_suite
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "evaluators/problem.hpp"
#include "evaluators/suites.hpp"
#include "tests/evaluators/cpu_test_util.hpp"

using namespace accelopt;
using namespace accelopt::eval;
using namespace accelopt::eval::cpu::testutil;

BOOST_AUTO_TEST_CASE(every_suite_baseline_passes_its_problem) {
  std::string suite = Src() + "/suites/cpu";
  if (!std::filesystem::is_directory(suite)) {
    BOOST_TEST_MESSAGE("no suites/cpu yet");
    return;
  }
  auto dirs = ListProblemDirs(suite, Env::Default());
  BOOST_REQUIRE(dirs.ok());
  BOOST_TEST_MESSAGE(dirs->size() << " problems under suites/cpu");
  auto backend = MakeBackend();
  // One seed, every adversarial case, minimal timing: this checks
  // correctness of the suite, not speed.
  EvalSettings s;
  s.seeds = {0};
  s.perturbation = false;
  s.warmup = 0;
  s.min_samples = 1;
  s.min_time_s = 1e-3;
  s.max_rounds = 1;
  s.timeout_s = 120;
  for (const auto& dir : *dirs) {
    BOOST_TEST_CONTEXT(dir) {
      auto p = LoadProblem(dir, Env::Default());
      BOOST_REQUIRE_MESSAGE(p.ok(), p.status().ToString());
      auto r = backend.Evaluate(Request(dir, ReadText(p->baseline_path), s), nullptr);
      BOOST_TEST((r.status == EvalStatus::kOk), EvalStatusName(r.status) << ": " << r.reason << "\n"
                                                                         << r.error_text.substr(0, 2000));
      BOOST_TEST_MESSAGE(p->name << ": " << (r.latency ? r.latency->median_us : -1) << " us, total "
                                 << r.timings.total_s << " s");
    }
  }
}
