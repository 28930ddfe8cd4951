#include "workflows/measurement.hpp"

#include <cmath>

namespace accelopt::workflows {

bool ReusableResult(const Measurement& m) {
  return m.status != "internal_error" && m.status != "cancelled" &&
         m.status != "evaluation_failed" && !m.status.empty();
}

bool FixableResult(const Measurement& m) {
  return m.status == "compile_error" || m.status == "wrong_result" ||
         m.status == "runtime_error" || m.status == "timeout";
}

Measurement ReadEvaluationResult(const json& result) {
  Measurement m;
  if (!result.is_object()) {
    m.status = "internal_error";
    m.reason = "evaluation result is not an object";
    return m;
  }
  m.status = result.value("status", "internal_error");
  m.reason = result.contains("reason") && result["reason"].is_string()
                 ? result["reason"].get<std::string>()
                 : std::string();
  if (result.contains("profile") && result["profile"].is_object()) m.profile = result["profile"];
  if (result.contains("hardware") && result["hardware"].is_object())
    m.test_stand_in = result["hardware"].value("test_stand_in", false);
  if (result.contains("comparison") && result["comparison"].is_object()) m.comparison = result["comparison"];
  if (result.contains("percent_of_peak") && result["percent_of_peak"].is_number()) {
    m.percent_of_peak = result["percent_of_peak"].get<double>();
  }
  double latency = 0;
  if (result.contains("latency") && result["latency"].is_object()) {
    const json& l = result["latency"];
    if (l.contains("spread") && l["spread"].is_number()) m.spread = l["spread"].get<double>();
    if (l.contains("median_us") && l["median_us"].is_number()) {
      latency = l["median_us"].get<double>();
    } else if (l.contains("mean_us") && l["mean_us"].is_number()) {
      latency = l["mean_us"].get<double>();
    }
  }
  const bool correct_flag = result.contains("correct") && result["correct"].is_boolean() &&
                            result["correct"].get<bool>();
  m.latency_us = latency;
  m.correct = m.status == "ok" && correct_flag && std::isfinite(latency) && latency > 0;
  if (m.status == "ok" && !m.correct && m.reason.empty()) {
    m.reason = "result marked ok but not correct or without a latency";
  }
  return m;
}

}  // namespace accelopt::workflows
