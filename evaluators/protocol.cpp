#include "evaluators/protocol.hpp"

#include <cmath>
#include <set>

#include "workflows/eval_vocabulary.hpp"

namespace accelopt::eval {
namespace {

// Small strict readers; each names the field in its error.
Status TypeError(const std::string& field, const char* want) { return InvalidArgument(field + ": must be " + want); }

Status ReadNumber(const json& j, const std::string& field, double* out) {
  if (!j.is_number()) return TypeError(field, "a number");
  *out = j.get<double>();
  if (!std::isfinite(*out)) return TypeError(field, "finite");
  return Status::Ok();
}

Status ReadInt(const json& j, const std::string& field, int64_t* out) {
  if (!j.is_number_integer()) return TypeError(field, "an integer");
  *out = j.get<int64_t>();
  return Status::Ok();
}

Status ReadBool(const json& j, const std::string& field, bool* out) {
  if (!j.is_boolean()) return TypeError(field, "true or false");
  *out = j.get<bool>();
  return Status::Ok();
}

Status ReadString(const json& j, const std::string& field, std::string* out) {
  if (!j.is_string()) return TypeError(field, "a string");
  *out = j.get<std::string>();
  return Status::Ok();
}

template <typename T>
Status ReadBoundedInt(const json& j, const std::string& field, int64_t lo, int64_t hi, T* out) {
  int64_t v = 0;
  ACCELOPT_RETURN_IF_ERROR(ReadInt(j, field, &v));
  if (v < lo || v > hi) {
    return InvalidArgument(field + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  *out = static_cast<T>(v);
  return Status::Ok();
}

Status ReadPositive(const json& j, const std::string& field, double* out) {
  ACCELOPT_RETURN_IF_ERROR(ReadNumber(j, field, out));
  if (*out <= 0) return InvalidArgument(field + ": must be > 0");
  return Status::Ok();
}

json OptionalNumber(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

Status ReadOptionalNumber(const json& obj, const char* key, std::optional<double>* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  double v = 0;
  ACCELOPT_RETURN_IF_ERROR(ReadNumber(*it, key, &v));
  *out = v;
  return Status::Ok();
}

}  // namespace

Result<EvalSettings> EvalSettings::FromJson(const json& j) {
  EvalSettings s;
  if (j.is_null()) return s;
  if (!j.is_object()) return TypeError("settings", "an object");
  for (const auto& [key, v] : j.items()) {
    std::string f = "settings." + key;
    if (key == "timeout_s")
      ACCELOPT_RETURN_IF_ERROR(ReadPositive(v, f, &s.timeout_s));
    else if (key == "compile_timeout_s")
      ACCELOPT_RETURN_IF_ERROR(ReadPositive(v, f, &s.compile_timeout_s));
    else if (key == "seeds") {
      if (!v.is_array() || v.empty()) return TypeError(f, "a non-empty array of integers");
      s.seeds.clear();
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number_unsigned()) return TypeError(f + "[" + std::to_string(i) + "]", "an integer >= 0");
        s.seeds.push_back(v[i].get<uint64_t>());
      }
    } else if (key == "adversarial")
      ACCELOPT_RETURN_IF_ERROR(ReadBool(v, f, &s.adversarial));
    else if (key == "perturbation")
      ACCELOPT_RETURN_IF_ERROR(ReadBool(v, f, &s.perturbation));
    else if (key == "warmup")
      ACCELOPT_RETURN_IF_ERROR(ReadBoundedInt(v, f, 0, 1000, &s.warmup));
    else if (key == "min_time_s")
      ACCELOPT_RETURN_IF_ERROR(ReadPositive(v, f, &s.min_time_s));
    else if (key == "min_samples")
      ACCELOPT_RETURN_IF_ERROR(ReadBoundedInt(v, f, 1, 1000000, &s.min_samples));
    else if (key == "max_samples")
      ACCELOPT_RETURN_IF_ERROR(ReadBoundedInt(v, f, 1, 1000000, &s.max_samples));
    else if (key == "max_rounds")
      ACCELOPT_RETURN_IF_ERROR(ReadBoundedInt(v, f, 1, 100, &s.max_rounds));
    else if (key == "min_rounds")
      ACCELOPT_RETURN_IF_ERROR(ReadBoundedInt(v, f, 1, 100, &s.min_rounds));
    else if (key == "target_spread")
      ACCELOPT_RETURN_IF_ERROR(ReadPositive(v, f, &s.target_spread));
    else if (key == "threads")
      ACCELOPT_RETURN_IF_ERROR(ReadBoundedInt(v, f, 0, 4096, &s.threads));
    else if (key == "memory_limit_mb")
      ACCELOPT_RETURN_IF_ERROR(ReadBoundedInt(v, f, 64, int64_t{1} << 30, &s.memory_limit_mb));
    else if (key == "static_checks")
      ACCELOPT_RETURN_IF_ERROR(ReadBool(v, f, &s.static_checks));
    else if (key == "baseline_latency_us") {
      if (!v.is_null()) {
        double d = 0;
        ACCELOPT_RETURN_IF_ERROR(ReadPositive(v, f, &d));
        s.baseline_latency_us = d;
      }
    } else if (key == "max_speedup")
      ACCELOPT_RETURN_IF_ERROR(ReadPositive(v, f, &s.max_speedup));
    else if (key == "roofline_slack")
      ACCELOPT_RETURN_IF_ERROR(ReadPositive(v, f, &s.roofline_slack));
    else if (key == "history_ratio") {
      ACCELOPT_RETURN_IF_ERROR(ReadPositive(v, f, &s.history_ratio));
      if (s.history_ratio < 1) return InvalidArgument(f + ": must be >= 1");
    } else if (key == "cores") {
      if (!v.is_array()) return TypeError(f, "an array of CPU numbers");
      s.cores.clear();
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number_unsigned() || v[i].get<uint64_t>() >= 1024)
          return TypeError(f + "[" + std::to_string(i) + "]", "a CPU number 0..1023");
        s.cores.push_back(static_cast<int>(v[i].get<uint64_t>()));
      }
    } else
      return InvalidArgument(f + ": unknown setting");
  }
  if (s.max_samples < s.min_samples) return InvalidArgument("settings.max_samples: must be >= min_samples");
  return s;
}

json EvalSettings::ToJson() const {
  json j = {{"timeout_s", timeout_s},
            {"compile_timeout_s", compile_timeout_s},
            {"seeds", seeds},
            {"adversarial", adversarial},
            {"perturbation", perturbation},
            {"warmup", warmup},
            {"min_time_s", min_time_s},
            {"min_samples", min_samples},
            {"max_samples", max_samples},
            {"min_rounds", min_rounds},
            {"max_rounds", max_rounds},
            {"target_spread", target_spread},
            {"threads", threads},
            {"memory_limit_mb", memory_limit_mb},
            {"static_checks", static_checks},
            {"max_speedup", max_speedup},
            {"roofline_slack", roofline_slack}};
  j["baseline_latency_us"] = OptionalNumber(baseline_latency_us);
  j["history_ratio"] = history_ratio;
  if (!cores.empty()) j["cores"] = cores;
  return j;
}

Result<EvalRequest> EvalRequest::FromJson(const json& j) {
  if (!j.is_object()) return TypeError("request", "an object");
  static const std::set<std::string> kKnown = {"id", "backend", "problem", "source", "settings", "compare_source"};
  for (const auto& [key, v] : j.items()) {
    if (!kKnown.count(key)) return InvalidArgument(key + ": unknown field of an evaluation request");
  }
  EvalRequest r;
  for (const char* key : {"backend", "problem", "source"}) {
    if (!j.contains(key)) return InvalidArgument(std::string(key) + ": missing");
  }
  ACCELOPT_RETURN_IF_ERROR(ReadString(j["backend"], "backend", &r.backend));
  ACCELOPT_RETURN_IF_ERROR(ReadString(j["problem"], "problem", &r.problem));
  ACCELOPT_RETURN_IF_ERROR(ReadString(j["source"], "source", &r.source));
  if (j.contains("id")) ACCELOPT_RETURN_IF_ERROR(ReadString(j["id"], "id", &r.id));
  if (j.contains("compare_source"))
    ACCELOPT_RETURN_IF_ERROR(ReadString(j["compare_source"], "compare_source", &r.compare_source));
  if (r.backend.empty()) return InvalidArgument("backend: must not be empty");
  if (j.contains("settings")) {
    ACCELOPT_ASSIGN_OR_RETURN(r.settings, EvalSettings::FromJson(j["settings"]));
  }
  return r;
}

json EvalRequest::ToJson() const {
  json j = {{"backend", backend}, {"problem", problem}, {"source", source}, {"settings", settings.ToJson()}};
  if (!id.empty()) j["id"] = id;
  if (!compare_source.empty()) j["compare_source"] = compare_source;
  return j;
}

const char* EvalStatusName(EvalStatus s) {
  switch (s) {
    case EvalStatus::kOk:
      return eval_vocab::kOk;
    case EvalStatus::kCompileError:
      return eval_vocab::kCompileError;
    case EvalStatus::kStaticCheckFailed:
      return eval_vocab::kStaticCheckFailed;
    case EvalStatus::kWrongResult:
      return eval_vocab::kWrongResult;
    case EvalStatus::kRuntimeError:
      return eval_vocab::kRuntimeError;
    case EvalStatus::kTimeout:
      return eval_vocab::kTimeout;
    case EvalStatus::kSuspicious:
      return eval_vocab::kSuspicious;
    case EvalStatus::kInternalError:
      return eval_vocab::kInternalError;
    case EvalStatus::kCancelled:
      return eval_vocab::kCancelled;
  }
  return eval_vocab::kInternalError;
}

Result<EvalStatus> ParseEvalStatus(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(EvalStatus::kCancelled); ++i) {
    auto s = static_cast<EvalStatus>(i);
    if (name == EvalStatusName(s)) return s;
  }
  return InvalidArgument("status: unknown value '" + name + "'");
}

json EvalResult::ToJson() const {
  json j;
  namespace v = eval_vocab;
  j[v::kStatusKey] = EvalStatusName(status);
  j["compiled"] = compiled;
  j[v::kCorrectKey] = correct;
  j[v::kReasonKey] = reason;
  j["error_text"] = error_text;
  if (!runner_diagnostics.empty()) j["runner_diagnostics"] = runner_diagnostics;
  if (latency) {
    j[v::kLatencyKey] = {{v::kMedianUsKey, latency->median_us}, {"min_us", latency->min_us},
                         {v::kMeanUsKey, latency->mean_us},     {v::kSpreadKey, latency->spread},
                         {"rounds", latency->rounds},           {"samples_us", latency->samples_us}};
  } else {
    j[v::kLatencyKey] = nullptr;
  }
  j[v::kProfileKey] = json::object();
  for (const auto& [k, x] : profile) j[v::kProfileKey][k] = x;
  j["peak_latency_us"] = OptionalNumber(peak_latency_us);
  j[v::kPercentOfPeakKey] = OptionalNumber(percent_of_peak);
  j["max_rel_error"] = OptionalNumber(max_rel_error);
  j["hardware"] = hardware;
  j["sandbox"] = sandbox;
  if (!comparison.is_null()) j[v::kComparisonKey] = comparison;
  j["timings_s"] = {{"compile", timings.compile_s},
                    {"check", timings.check_s},
                    {"measure", timings.measure_s},
                    {"total", timings.total_s}};
  return j;
}

Result<EvalResult> EvalResult::FromJson(const json& j) {
  if (!j.is_object()) return TypeError("result", "an object");
  namespace v = eval_vocab;
  EvalResult r;
  if (!j.contains(v::kStatusKey)) return InvalidArgument("status: missing");
  std::string st;
  ACCELOPT_RETURN_IF_ERROR(ReadString(j[v::kStatusKey], "status", &st));
  ACCELOPT_ASSIGN_OR_RETURN(r.status, ParseEvalStatus(st));
  if (j.contains("compiled")) ACCELOPT_RETURN_IF_ERROR(ReadBool(j["compiled"], "compiled", &r.compiled));
  if (j.contains(v::kCorrectKey)) ACCELOPT_RETURN_IF_ERROR(ReadBool(j[v::kCorrectKey], "correct", &r.correct));
  if (j.contains(v::kReasonKey)) ACCELOPT_RETURN_IF_ERROR(ReadString(j[v::kReasonKey], "reason", &r.reason));
  if (j.contains("error_text")) ACCELOPT_RETURN_IF_ERROR(ReadString(j["error_text"], "error_text", &r.error_text));
  if (j.contains("runner_diagnostics"))
    ACCELOPT_RETURN_IF_ERROR(ReadString(j["runner_diagnostics"], "runner_diagnostics", &r.runner_diagnostics));
  if (j.contains(v::kLatencyKey) && !j[v::kLatencyKey].is_null()) {
    const json& l = j[v::kLatencyKey];
    if (!l.is_object()) return TypeError("latency", "an object or null");
    LatencyStats s;
    for (auto [key, dst] : {std::pair{v::kMedianUsKey, &s.median_us},
                            {"min_us", &s.min_us},
                            {v::kMeanUsKey, &s.mean_us},
                            {v::kSpreadKey, &s.spread}}) {
      if (!l.contains(key)) return InvalidArgument(std::string("latency.") + key + ": missing");
      ACCELOPT_RETURN_IF_ERROR(ReadNumber(l[key], std::string("latency.") + key, dst));
    }
    if (l.contains("rounds"))
      ACCELOPT_RETURN_IF_ERROR(ReadBoundedInt(l["rounds"], "latency.rounds", 0, 1000000, &s.rounds));
    if (l.contains("samples_us")) {
      if (!l["samples_us"].is_array()) return TypeError("latency.samples_us", "an array");
      for (size_t i = 0; i < l["samples_us"].size(); ++i) {
        double d = 0;
        ACCELOPT_RETURN_IF_ERROR(ReadNumber(l["samples_us"][i], "latency.samples_us[" + std::to_string(i) + "]", &d));
        s.samples_us.push_back(d);
      }
    }
    r.latency = std::move(s);
  }
  if (j.contains(v::kProfileKey)) {
    if (!j[v::kProfileKey].is_object()) return TypeError("profile", "an object");
    for (const auto& [k, x] : j[v::kProfileKey].items()) {
      double d = 0;
      ACCELOPT_RETURN_IF_ERROR(ReadNumber(x, "profile." + k, &d));
      r.profile[k] = d;
    }
  }
  ACCELOPT_RETURN_IF_ERROR(ReadOptionalNumber(j, "peak_latency_us", &r.peak_latency_us));
  ACCELOPT_RETURN_IF_ERROR(ReadOptionalNumber(j, v::kPercentOfPeakKey, &r.percent_of_peak));
  ACCELOPT_RETURN_IF_ERROR(ReadOptionalNumber(j, "max_rel_error", &r.max_rel_error));
  if (j.contains("hardware")) r.hardware = j["hardware"];
  if (j.contains("sandbox")) r.sandbox = j["sandbox"];
  if (j.contains(v::kComparisonKey) && !j[v::kComparisonKey].is_null()) {
    if (!j[v::kComparisonKey].is_object()) return TypeError("comparison", "an object");
    r.comparison = j[v::kComparisonKey];
  }
  if (j.contains("timings_s")) {
    const json& t = j["timings_s"];
    if (!t.is_object()) return TypeError("timings_s", "an object");
    for (auto [key, dst] : {std::pair{"compile", &r.timings.compile_s},
                            {"check", &r.timings.check_s},
                            {"measure", &r.timings.measure_s},
                            {"total", &r.timings.total_s}}) {
      if (t.contains(key)) ACCELOPT_RETURN_IF_ERROR(ReadNumber(t[key], std::string("timings_s.") + key, dst));
    }
  }
  return r;
}

EvalResult EvalResult::Failure(EvalStatus status, std::string reason, std::string error_text) {
  EvalResult r;
  r.status = status;
  r.reason = std::move(reason);
  r.error_text = TruncateErrorText(error_text);
  return r;
}

std::string TruncateErrorText(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t tail = max_bytes / 4;
  size_t head = max_bytes - tail;
  return text.substr(0, head) + "\n... [" + std::to_string(text.size() - head - tail) + " bytes cut] ...\n" +
         text.substr(text.size() - tail);
}

}  // namespace accelopt::eval
