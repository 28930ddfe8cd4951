// The evaluation protocol: one EvalRequest (backend, problem, candidate
// source, settings) in, one EvalResult out. Both are plain values with
// to/from JSON exactly as documented in docs/contracts.md ("Evaluation").
//
// Parsing is strict: unknown keys in `settings`, wrong types and out-of-range
// values come back as kInvalidArgument naming the field ("settings.min_time_s:
// must be > 0"), so a typo in a campaign preset is an error, not a default.
// Serialization never throws (base/json.hpp Dump replaces invalid UTF-8 that
// compiler output may contain).
//
// Thread safety: plain values; no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::eval {

// Knobs of one evaluation. Every default is listed; a backend ignores what it
// cannot honour (the fake backend ignores all of them).
struct EvalSettings {
  double timeout_s = 180;                             // wall clock for running checks + timing (hard kill)
  double compile_timeout_s = 60;                      // wall clock for compiling the candidate
  std::vector<uint64_t> seeds = {0, 21, 42, 63, 84};  // correctness seeds (>= 1)
  bool adversarial = true;                            // also run the problem's adversarial inputs
  bool perturbation = true;                           // re-run seed[0] with a few inputs changed in place
  int warmup = 1;                                     // untimed calls before each timing round
  double min_time_s = 0.1;                            // a timing round runs until this much kernel time...
  int min_samples = 5;                                // ...and at least this many calls
  int max_samples = 1000;                             // a round never takes more calls than this
  int min_rounds = 3;                                 // rounds always run (capped at max_rounds); the
                                                      // fastest round's median is the latency, so a
                                                      // round slowed by a busy neighbour does not count
  int max_rounds = 5;                                 // rounds repeated while spread > target_spread
  double target_spread = 0.01;                        // relative noise of the median that ends the rounds
  int threads = 0;                                    // OMP_NUM_THREADS for the kernel; 0 = one per core of the slot
  std::vector<int> cores;                             // CPUs the runner is pinned to (the slot); empty = every CPU the
                                                      // evaluator may use. The roofline uses this many cores.
  double history_ratio = 1.5;                         // accepted for old specs (>= 1); no effect since judge round 3:
                                                      // no timed input repeats, so there is no history to check
  uint64_t memory_limit_mb = 4096;                    // address-space limit of the harness process
  bool static_checks = true;                          // symbol/source checks; false only in tests of the sandbox
  std::optional<double> baseline_latency_us;          // when set, flags implausible speedups
  double max_speedup = 200;                           // speedup over baseline_latency_us that is "suspicious"
  double roofline_slack = 1.10;                       // percent_of_peak above 100*slack is "suspicious"

  // Strict parse: unknown keys are errors. Missing keys keep defaults.
  static Result<EvalSettings> FromJson(const json& j);
  json ToJson() const;
};

struct EvalRequest {
  std::string id;       // optional, echoed in logs; may be empty
  std::string backend;  // "cpu", "fake", ...
  std::string problem;  // problem folder, e.g. "suites/cpu/silu" (relative to the backend's root)
  std::string source;   // candidate source text
  EvalSettings settings;
  // Optional: a second kernel (usually the problem's baseline) checked and
  // timed interleaved with the candidate in the same run; the result's
  // `comparison` then carries the speedup with its confidence interval.
  std::string compare_source;

  static Result<EvalRequest> FromJson(const json& j);
  json ToJson() const;
};

enum class EvalStatus {
  kOk,
  kCompileError,
  kStaticCheckFailed,
  kWrongResult,
  kRuntimeError,
  kTimeout,
  kSuspicious,
  kInternalError,
  kCancelled,
};

// "ok", "compile_error", ... as in docs/contracts.md.
const char* EvalStatusName(EvalStatus s);
Result<EvalStatus> ParseEvalStatus(const std::string& name);

struct LatencyStats {
  double median_us = 0;
  double min_us = 0;
  double mean_us = 0;
  double spread = 0;               // relative half-width of a ~95% CI of the median
  int rounds = 0;                  // timing rounds run (samples come from the fastest)
  std::vector<double> samples_us;  // raw samples of the kept round, in call order
};

struct EvalTimings {
  double compile_s = 0;  // compiling the candidate
  double check_s = 0;    // static checks, harness build (cached), reference preparation (cached)
  double measure_s = 0;  // the harness run: correctness cases + timing
  double total_s = 0;    // wall clock of the whole evaluation
};

struct EvalResult {
  EvalStatus status = EvalStatus::kInternalError;
  bool compiled = false;
  bool correct = false;
  std::string reason;      // one line a person can read
  std::string error_text;  // compiler output / mismatch statistics / signal; see TruncateErrorText
  // What the candidate's runner processes wrote on their stderr (bounded,
  // TruncateErrorText): for a human reading the evaluation, never for a
  // prompt. Only the judge's own words (reason, error_text) reach the agent
  // (docs/evaluation.md, "Only the judge speaks").
  std::string runner_diagnostics;
  std::optional<LatencyStats> latency;    // present when timed
  std::map<std::string, double> profile;  // honest metrics only (see docs/evaluation.md)
  std::optional<double> peak_latency_us;  // roofline latency of the problem on this machine
  std::optional<double> percent_of_peak;  // 100 * peak_latency_us / latency.median_us
  std::optional<double> max_rel_error;    // worst relative L2 error over all cases
  // {"fingerprint": ..., "cpu_model": ..., ...}. "test_stand_in": true
  // marks figures of a test-only stand-in (tests/fakes/nki, accepted only on
  // an explicit opt-in): NOT measurements; shown with kTestStandInNotice,
  // never written to memory nor ranked with measurements (IsTestStandIn).
  json hardware = json::object();
  json sandbox = json::object();  // {"network_isolated": bool, "seccomp": bool, ...}
  // With request.compare_source and a correct candidate: {"baseline_median_us",
  // "baseline_spread", "baseline_samples_us", "speedup", "speedup_low",
  // "speedup_high" (~95% interval of the median of the paired ratios: every
  // timed pair of every round, each the baseline's call / the candidate's
  // call right next to it), "pairs" (how many), "noisy" (a spread stayed
  // above target_spread after max_rounds)}; null otherwise. The baseline's
  // median and samples are the kept round's.
  json comparison = nullptr;
  EvalTimings timings;

  static Result<EvalResult> FromJson(const json& j);
  json ToJson() const;

  // Convenience constructor for failures before anything ran.
  static EvalResult Failure(EvalStatus status, std::string reason, std::string error_text = "");
};

// The line printed first wherever a test stand-in's figures are shown.
inline constexpr char kTestStandInNotice[] =
    "TEST STAND-IN FIGURES: these come from accelopt's test-only Neuron SDK stand-in (tests/fakes/nki), NOT from a "
    "Trainium; they are not measurements";
// True when `hardware` (EvalResult.hardware, or its JSON) says the figures
// are a test stand-in's.
inline bool IsTestStandIn(const json& hardware) {
  return hardware.is_object() && hardware.value("test_stand_in", false);
}

// Keeps `text` readable at a bounded size: the head (where compilers put the
// first error) and the tail, with a marker saying how much was cut.
// Default cap 8 KiB.
std::string TruncateErrorText(const std::string& text, size_t max_bytes = 8192);

}  // namespace accelopt::eval
