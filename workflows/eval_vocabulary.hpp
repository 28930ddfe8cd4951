// The words of an evaluation result (docs/contracts.md, "Evaluation
// results"), spelled once: the status names and the result's keys that a
// campaign reads. The evaluators write them (evaluators/protocol.cpp:
// EvalStatusName, EvalResult::ToJson/FromJson) and the campaign reads them
// (workflows/measurement.cpp); both use these constants, so a renamed word
// changes both sides or neither. Here in workflows/ (floor 2) because the
// evaluators (floor 3) may use workflows/ and not the other way round.
//
// Thread safety: constants.
#pragma once

namespace accelopt::eval_vocab {

// Result statuses, as EvalStatus names them (evaluators/protocol.hpp).
inline constexpr char kOk[] = "ok";
inline constexpr char kCompileError[] = "compile_error";
inline constexpr char kStaticCheckFailed[] = "static_check_failed";
inline constexpr char kWrongResult[] = "wrong_result";
inline constexpr char kRuntimeError[] = "runtime_error";
inline constexpr char kTimeout[] = "timeout";
inline constexpr char kSuspicious[] = "suspicious";
inline constexpr char kInternalError[] = "internal_error";
inline constexpr char kCancelled[] = "cancelled";
// Not an evaluator's: the campaign's status of an evaluation activity that
// brought back no result at all (workflows/campaign_state.cpp).
inline constexpr char kEvaluationFailed[] = "evaluation_failed";

// The result's keys a campaign reads (workflows/measurement.hpp).
inline constexpr char kStatusKey[] = "status";
inline constexpr char kCorrectKey[] = "correct";
inline constexpr char kReasonKey[] = "reason";
inline constexpr char kProfileKey[] = "profile";
inline constexpr char kComparisonKey[] = "comparison";
inline constexpr char kPercentOfPeakKey[] = "percent_of_peak";
inline constexpr char kLatencyKey[] = "latency";
// Keys of the result's "latency" object.
inline constexpr char kMedianUsKey[] = "median_us";
inline constexpr char kMeanUsKey[] = "mean_us";
inline constexpr char kSpreadKey[] = "spread";

}  // namespace accelopt::eval_vocab
