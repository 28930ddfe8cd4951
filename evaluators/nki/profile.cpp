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

Result<DeviceProfile> ParseProfileSummary(std::string_view text, const std::string& file) {
  auto j = ParseJson(text);
  if (!j.ok()) return j.status().WithContext(file);
  if (!j->is_object() || j->empty()) return InvalidArgument(file + ": not a profile summary (expected {kernel: {...}})");
  // The summary is the member (an object, or an array of one object) that
  // holds total_time, wherever it is among the others: members are read by
  // name, never by position (the parsed object is sorted by key, not in
  // the profiler's order).
  const json* summary = nullptr;
  std::string key;
  std::string names;
  for (auto it = j->begin(); it != j->end(); ++it) {
    const json* cand = &*it;
    if (cand->is_array() && cand->size() == 1) cand = &(*cand)[0];
    if (!cand->is_object() || !cand->contains("total_time")) continue;
    if (summary) {
      return InvalidArgument(file + ": several members hold a total_time ('" + key + "', '" + it.key() +
                             "'): which kernel was profiled is ambiguous");
    }
    summary = cand;
    key = it.key();
  }
  if (!summary) {
    for (auto it = j->begin(); it != j->end(); ++it) names += (names.empty() ? "" : ", ") + it.key();
    return InvalidArgument(file + ": no member holds a total_time (the device time); members: " + names);
  }
  const json& s = *summary;
  DeviceProfile p;
  p.kernel = key;
  auto t = s.find("total_time");
  if (!AsNumber(*t, &p.total_time_s) || !(p.total_time_s > 0)) {
    return InvalidArgument(file + ": " + p.kernel + ".total_time: must be a positive number of seconds");
  }
  for (std::string_view f : kProfileFields) {
    const std::string key(f);
    auto it = s.find(key);
    if (it == s.end() || it->is_null()) {
      p.missing.push_back(key);
      continue;
    }
    double v = 0;
    if (!AsNumber(*it, &v)) return InvalidArgument(file + ": " + p.kernel + "." + key + ": must be a number");
    p.fields[key] = v;
  }
  return p;
}

json DeviceProfile::ToJson() const {
  json f = json::object();
  for (const auto& [k, v] : fields) f[k] = v;
  return {{"kernel", kernel}, {"total_time_us", total_time_s * 1e6}, {"fields", f}, {"missing", missing}};
}

}  // namespace accelopt::eval::nki
