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
  if (!j->is_object() || j->empty()) return InvalidArgument(file + ": not a neuron-profile summary (expected {kernel: {...}})");
  auto first = j->begin();
  if (!first->is_object()) return InvalidArgument(file + ": " + first.key() + ": must be an object of metrics");
  const json& s = *first;
  DeviceProfile p;
  p.kernel = first.key();
  auto t = s.find("total_time");
  if (t == s.end()) return InvalidArgument(file + ": " + p.kernel + ": no total_time (the device time)");
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
