// One nki evaluation, end to end, by the trusted judge (this code, in the
// caller's process) around two untrusted-or-separate children:
//   1. static checks on the candidate (evaluators/nki/static_check.hpp);
//   2. inputs for `normal_cases` + one per adversarial case, drawn from a
//      secret key (evaluators/nki/inputs.hpp), written to the evaluation's
//      private work folder;
//   3. the untrusted runner (runner.py) on the given NeuronCore: raw float32
//      outputs of every case and the profiler artifacts of round 0;
//   4. once the runner succeeded, the trusted numpy reference in its own
//      process on the inputs widened to float64 (reference_runner.py); the
//      judge compares every case (judge_compare.hpp); further timing rounds
//      by the paper's rule (timing.hpp), each in a fresh runner; the outputs of
//      every warm-up and timed run are checked against case 0's reference
//      too (a kernel cannot be right when checked and fast when timed);
//   5. device time: the judge runs neuron-profile on every artifact itself
//      (profile.hpp), keeps every sample; the last summary is the planner's
//      profile;
//   6. percent of peak by the three-engine roofline (roofline.hpp); faster
//      than the roofline is an internal error.
// A result whose profiler or runner says it came from the test-only SDK
// stand-in (tests/fakes/nki: its hello record, its profile's marker) is
// refused unless allow_test_stand_in, the explicit opt-in (accelopt-eval
// run/job/doctor --allow-test-stand-in, the daemon's
// evaluators.nki.allow_test_stand_in; default false); when allowed it is
// marked kStandInDevice, and only a result the stand-in marked ever is: a
// real SDK's never gets the label, the stand-in's never loses it.
//
// Thread safety: reentrant (each call has its own work folder).
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "evaluators/nki/profile.hpp"
#include "evaluators/protocol.hpp"
#include "evaluators/nki/runner_link.hpp"
#include "evaluators/nki/timing.hpp"
#include "workflows/problem_json.hpp"

namespace accelopt::eval::nki {

// The device of every result the stand-in produced (EvalResult.hardware
// "device", with "test_stand_in": true beside it: docs/contracts.md).
inline constexpr char kStandInDevice[] = "test stand-in (NOT a Trainium measurement)";
// The line shown first wherever such figures are printed.
inline constexpr const char* kStandInNotice = kTestStandInNotice;

struct NkiEvalOptions {
  RunnerSettings runner;
  TimingRule timing;
  bool measure = true;  // false: correctness only
  int normal_cases = 5;
  uint64_t secret_key = 0;  // 0: drawn from env->RandomU64()
  std::string generation = "trn1";
  std::string work_root = "/tmp";  // a private folder per evaluation is made under it
  bool keep_work_dir = false;
  bool allow_test_stand_in = false;  // the opt-in (above); default false
  // On the nki path: a neuronxcc.nki (Beta 1) kernel is migrated
  // (evaluators/nki/migrate.hpp); one that cannot be is run as it is on the
  // neuronxcc.nki path when that namespace with nki.baremetal imports here
  // (SdkChoice::beta1_available: 2.28..2.33 keep it, per the NKI notes'
  // "postponed" removal), else refused with the migration's reason.
  bool beta1_available = false;
};

struct NkiEvalOutcome {
  // ok | rejected | compile_error | wrong_result | crash | timeout | cancelled | internal_error
  std::string status = "internal_error";
  std::string reason;
  bool core_suspect = false;  // the runner crashed or timed out: health-check the core
  bool stand_in = false;      // produced by the test-only SDK stand-in
  bool simulated = false;     // the CPU simulator (runner.simulate): correctness only, no timing
  double worst_rel_error = 0;
  std::optional<TimingResult> timing;
  std::optional<DeviceProfile> profile;
  std::optional<double> percent_of_peak;
  std::string runner_stderr;           // the tail, for the fixer (never a result)
  std::vector<std::string> migration;  // the Beta 1 -> nki rewrites made to the kernel (migrate.hpp)
  std::string kernel_path;             // "nki" | "neuronxcc": the path the kernel ran on
  json ToJson() const;
};

NkiEvalOutcome EvaluateNki(const workflows::ProblemSpec& problem, const std::string& reference_path,
                           const std::string& kernel_source, int core, const NkiEvalOptions& options, Env* env,
                           const std::atomic<bool>* cancel);

}  // namespace accelopt::eval::nki
