#include "workflows/measurement.hpp"

#include <cmath>

#include "workflows/eval_vocabulary.hpp"

namespace accelopt::workflows {

namespace v = eval_vocab;

bool ReusableResult(const Measurement& m) {
  return m.status != v::kInternalError && m.status != v::kCancelled && m.status != v::kEvaluationFailed &&
         !m.status.empty();
}

bool FixableResult(const Measurement& m) {
  return m.status == v::kCompileError || m.status == v::kWrongResult || m.status == v::kRuntimeError ||
         m.status == v::kTimeout;
}

Measurement ReadEvaluationResult(const json& result, LatencyFigure figure) {
  Measurement m;
  if (!result.is_object()) {
    m.status = v::kInternalError;
    m.reason = "evaluation result is not an object";
    return m;
  }
  m.status = result.contains(v::kStatusKey) && result[v::kStatusKey].is_string()
                 ? result[v::kStatusKey].get<std::string>()
                 : std::string(v::kInternalError);
  m.reason = result.contains(v::kReasonKey) && result[v::kReasonKey].is_string()
                 ? result[v::kReasonKey].get<std::string>()
                 : std::string();
  if (result.contains(v::kProfileKey) && result[v::kProfileKey].is_object()) {
    m.profile = result[v::kProfileKey];
    const json& c = m.profile.contains("contended") ? m.profile["contended"] : json();
    m.contended = c.is_number() && c.get<double>() > 0;
  }
  if (result.contains("hardware") && result["hardware"].is_object())
    m.test_stand_in = result["hardware"].value("test_stand_in", false);
  if (result.contains(v::kComparisonKey) && result[v::kComparisonKey].is_object()) {
    m.comparison = result[v::kComparisonKey];
  }
  if (result.contains(v::kPercentOfPeakKey) && result[v::kPercentOfPeakKey].is_number()) {
    m.percent_of_peak = result[v::kPercentOfPeakKey].get<double>();
  }
  double latency = 0;
  if (result.contains(v::kLatencyKey) && result[v::kLatencyKey].is_object()) {
    const json& l = result[v::kLatencyKey];
    if (l.contains(v::kSpreadKey) && l[v::kSpreadKey].is_number()) m.spread = l[v::kSpreadKey].get<double>();
    const char* first = figure == LatencyFigure::kMean ? v::kMeanUsKey : v::kMedianUsKey;
    const char* second = figure == LatencyFigure::kMean ? v::kMedianUsKey : v::kMeanUsKey;
    if (l.contains(first) && l[first].is_number()) {
      latency = l[first].get<double>();
    } else if (l.contains(second) && l[second].is_number()) {
      latency = l[second].get<double>();
    }
  }
  const bool correct_flag =
      result.contains(v::kCorrectKey) && result[v::kCorrectKey].is_boolean() && result[v::kCorrectKey].get<bool>();
  m.latency_us = latency;
  m.correct = m.status == v::kOk && correct_flag && std::isfinite(latency) && latency > 0;
  if (m.status == v::kOk && !m.correct && m.reason.empty()) {
    m.reason = "result marked ok but not correct or without a latency";
  }
  return m;
}

}  // namespace accelopt::workflows
