// What one nki evaluation of a problem costs the host, from its sizes
// alone (the judge's own arithmetic, evaluators/nki/evaluate.cpp):
//   moved      bytes between runner and judge: the inputs file (every case),
//              the runner's float32 outputs of every case and of every
//              warm-up and timed run of round 0, the reference's float64
//              outputs of every case;
//   disk       the evaluation folder at its fullest (the same files: the
//              runner's outputs are removed after each round);
//   judge      the judge's peak memory: chunks only (output_files.hpp,
//              kChunkElements), whatever the problem's size;
//   reference  the reference process at its peak: one case's inputs in
//              float64 and four float64 copies of its outputs (numpy's
//              temporaries; an estimate: the reference module is the user's);
//   runner     the runner process: one case's float32 inputs and four
//              float32 copies of its outputs (an estimate, checked against
//              the stand-in's numpy kernel on bmm_softmax: 3.9 GiB measured,
//              4.1 GiB estimated; the SDK's own memory is not known here).
// The runner and the reference never run at once, so the host's peak is
// judge + max(runner, reference). `accelopt-eval import nkibench` prints
// it per problem and refuses a problem whose peak does not fit a 24 GiB
// machine (kHostBudgetBytes, of which 4 GiB are left to the OS and the
// daemon).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.hpp"
#include "workflows/problem_json.hpp"

namespace accelopt::eval::nki {

inline constexpr uint64_t kHostBudgetBytes = uint64_t{24} << 30;
inline constexpr uint64_t kHostReserveBytes = uint64_t{4} << 30;

struct EvalBudget {
  int cases = 0, timing_runs = 0;
  uint64_t input_bytes = 0, output_bytes = 0;  // one case, float32
  uint64_t moved = 0, disk = 0;
  uint64_t judge_peak = 0, reference_peak = 0, runner_peak = 0, host_peak = 0;
  // "moves 3.2 GiB (inputs 1.1 GiB, outputs 1.4 GiB, reference 0.7 GiB); peaks: judge 40 MiB, reference 2 GiB, ..."
  std::string Describe() const;
};

// For `normal_cases` + the problem's adversarial cases and `warmup` +
// `iterations` timing runs (the backend's defaults: 5, 2 and 10).
EvalBudget EstimateBudget(const workflows::ProblemSpec& problem, int normal_cases = 5, int warmup = 2,
                          int iterations = 10);

// Ok, or kResourceExhausted naming the problem, its peak and the budget.
Status CheckFitsHost(const EvalBudget& b, const std::string& problem, uint64_t budget = kHostBudgetBytes);

// "1.5 GiB", "40 MiB", "512 B".
std::string FormatBytes(uint64_t bytes);

}  // namespace accelopt::eval::nki
