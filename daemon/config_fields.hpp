// Reading the fields of a config section, every error naming the field:
// unknown keys (base/strict_json.hpp's message), typed values, paths relative
// to the config file's folder. Used by the daemon's config (config.cpp) and
// by each backend module's section parser (daemon/backends/).
//
// Thread safety: pure functions.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <type_traits>

#include "base/json.hpp"
#include "base/status.hpp"
#include "base/strict_json.hpp"

namespace accelopt::daemon {

// The strict reader's message (base/strict_json.hpp) for a key outside
// `allowed`: "<where>: unknown key `k` (did you mean `near`?)" (the file is
// added by LoadDaemonConfig); "<where>: must be an object" when obj is not one.
inline Status CheckKeys(const json& obj, const std::string& where, const std::set<std::string>& allowed) {
  return CheckKnownKeys(obj, JsonPlace{"", where}, allowed);
}

// obj[key] into `out` when present (absent: out keeps its default), with
// "<where>.<key>: must be ..." for a wrong type or an integer out of range.
template <typename T>
Status Get(const json& obj, const std::string& key, const std::string& where, T& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return Status::Ok();
  std::string field = where.empty() ? key : where + "." + key;
  try {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!it->is_string()) return InvalidArgument(field + ": must be a string");
    } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, unsigned>) {
      if (!it->is_number_integer()) return InvalidArgument(field + ": must be an integer");
      if (!IntegerFits<T>(*it)) return InvalidArgument(field + ": out of range");
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!it->is_number()) return InvalidArgument(field + ": must be a number");
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!it->is_boolean()) return InvalidArgument(field + ": must be true or false");
    }
    out = it->get<T>();
  } catch (const json::exception&) {
    return InvalidArgument(field + ": wrong type");
  }
  return Status::Ok();
}

// `p` relative to `base` (absolute and empty paths unchanged).
inline std::string Resolve(const std::string& base, const std::string& p) {
  if (p.empty() || p[0] == '/') return p;
  return (std::filesystem::path(base) / p).lexically_normal().string();
}

}  // namespace accelopt::daemon
