#include "evaluators/nki/profile.hpp"

#include <cmath>
#include <cstdlib>

namespace accelopt::eval::nki {
namespace {

// A number, or a string holding exactly one finite number.
bool AsNumber(const json& v, double* out) {
  if (v.is_number()) {
    *out = v.get<double>();
    return std::isfinite(*out);
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s.empty()) return false;
    char* end = nullptr;
    *out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(*out);
  }
  return false;
}

}  // namespace

namespace {

// The device time a summary object holds: "total_time" (seconds) or
// "latency" (milliseconds); "" when neither.
const char* TimeKey(const json& o) {
  if (!o.is_object()) return "";
  if (o.contains("total_time")) return "total_time";
  if (o.contains("latency")) return "latency";
  return "";
}

}  // namespace

Result<DeviceProfile> ParseProfileSummary(std::string_view text, const std::string& file) {
  auto j = ParseJson(text);
  if (!j.ok()) return j.status().WithContext(file);
  if (!j->is_object() || j->empty()) return InvalidArgument(file + ": not a profile summary (expected a JSON object)");
  // Flat (the metrics at the top level) or nested (one member, an object or
  // an array of one object, holds them), found by content: members are
  // read by name, never by position (the parsed object is sorted by key,
  // not in the profiler's order).
  const json* summary = nullptr;
  std::string key;
  bool flat = false;
  if (*TimeKey(*j)) {
    summary = &*j;
    flat = true;
  } else {
    for (auto it = j->begin(); it != j->end(); ++it) {
      const json* cand = &*it;
      if (cand->is_array() && cand->size() == 1) cand = &(*cand)[0];
      if (!*TimeKey(*cand)) continue;
      if (summary) {
        return InvalidArgument(file + ": several members hold a device time ('" + key + "', '" + it.key() +
                               "'): which kernel was profiled is ambiguous");
      }
      summary = cand;
      key = it.key();
    }
  }
  if (!summary) {
    std::string names;
    for (auto it = j->begin(); it != j->end(); ++it) names += (names.empty() ? "" : ", ") + it.key();
    return InvalidArgument(file +
                           ": an unknown summary layout: neither the top level nor one member holds a "
                           "total_time (seconds) or a latency (milliseconds); members: " +
                           names);
  }
  const json& s = *summary;
  DeviceProfile p;
  p.kernel = flat ? "" : key;
  const std::string tk = TimeKey(s);
  const double scale = tk == "latency" ? 1e-3 : 1.0;
  p.layout = std::string(flat ? "flat" : "nested") + (tk == "latency" ? " latency (ms)" : " total_time (s)");
  double t = 0;
  const std::string where = file + ": " + (flat ? "" : p.kernel + ".") + tk;
  if (!AsNumber(s.at(tk), &t) || !(t > 0)) {
    return InvalidArgument(where + ": must be a positive number of " + (scale == 1.0 ? "seconds" : "milliseconds"));
  }
  p.total_time_s = t * scale;
  for (std::string_view f : kProfileFields) {
    const std::string key(f);
    auto it = s.find(key);
    if (it == s.end() || it->is_null()) {
      p.missing.push_back(key);
      continue;
    }
    double v = 0;
    if (!AsNumber(*it, &v))
      return InvalidArgument(file + ": " + (flat ? "" : p.kernel + ".") + key + ": must be a number");
    p.fields[key] = v;
  }
  return p;
}

json DeviceProfile::ToJson() const {
  json f = json::object();
  for (const auto& [k, v] : fields) f[k] = v;
  return {{"kernel", kernel},
          {"layout", layout},
          {"total_time_us", total_time_s * 1e6},
          {"fields", f},
          {"missing", missing}};
}

}  // namespace accelopt::eval::nki
