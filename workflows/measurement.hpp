// What an evaluation result means to a campaign: its reading (correct, the
// latency the beam ranks by, the noise) and which statuses are reused for
// identical code or handed to the fixer. docs/contracts.md has the result's
// fields; the status names and keys are workflows/eval_vocabulary.hpp's.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <string>

#include "base/json.hpp"

namespace accelopt::workflows {

// Which latency of a result the beam ranks by: the median of the timed calls
// (ours), or the mean, the published figure (the kept round's mean,
// accelopt/kernel_wrapper.py:134-135 @47e29a7), read where the mode and the
// backend say so (LatencyFigureOf, mode_rules.hpp).
enum class LatencyFigure { kMedian, kMean };

// Reading of an evaluation result (docs/contracts.md).
struct Measurement {
  bool correct = false;         // status "ok" and correct, with a positive latency
  double latency_us = 0;        // latency.median_us (mean_us if no median); kMean: the other way round
  double spread = 0;            // latency.spread, the relative noise (0 if absent)
  double percent_of_peak = -1;  // -1 when unknown
  std::string status;           // result status, or "evaluation_failed"
  std::string reason;
  json profile = json::object();
  bool contended = false;     // profile.contended: no timing round was clean (the judge's re-runs included)
  json comparison = nullptr;  // result.comparison: the interleaved speedup over the baseline, if asked for
  // result.hardware.test_stand_in: figures of a test-only stand-in
  // (tests/fakes/nki, allowed by an explicit opt-in), NOT a measurement.
  bool test_stand_in = false;
};
Measurement ReadEvaluationResult(const json& result, LatencyFigure figure = LatencyFigure::kMedian);

// Evaluation statuses whose result is reused for identical code (not
// internal_error, cancelled, or a failed evaluation).
bool ReusableResult(const Measurement& m);
// Statuses the fixer is asked to repair.
bool FixableResult(const Measurement& m);

}  // namespace accelopt::workflows
