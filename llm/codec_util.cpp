#include "llm/codec.hpp"

#include <cstdint>

namespace accelopt::llm {
namespace codec_util {

const json* Find(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string String(const json* j) { return j && j->is_string() ? j->get<std::string>() : ""; }

int64_t Int(const json* j) {
  if (!j) return 0;
  if (j->is_number_unsigned()) {
    uint64_t v = j->get<uint64_t>();
    return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
  }
  if (j->is_number_integer()) return j->get<int64_t>();
  if (j->is_number_float()) {
    // Casting a double outside int64's range (or NaN) is undefined behaviour.
    double d = j->get<double>();
    if (!(d > -9.2e18 && d < 9.2e18)) return 0;
    return static_cast<int64_t>(d);
  }
  return 0;
}

}  // namespace codec_util

std::string ErrorMessageFromBody(const std::string& body) {
  using namespace codec_util;
  auto parsed = ParseJson(body);
  if (!parsed.ok()) {
    // Not JSON (a proxy's HTML page, plain text): the first line, shortened.
    std::string line = body.substr(0, body.find('\n'));
    return line.substr(0, 200);
  }
  const json& j = *parsed;
  if (const json* e = Find(j, "error")) {
    if (e->is_string()) return e->get<std::string>();
    if (std::string m = String(Find(*e, "message")); !m.empty()) return m;
  }
  for (const char* key : {"message", "Message", "detail"}) {
    if (std::string m = String(Find(j, key)); !m.empty()) return m;
  }
  // Not OpenAI-shaped ({"detail": [{"msg": ...}]}, {"errors": [...]}): the
  // body itself, shortened, rather than nothing.
  std::string compact = j.dump();
  return compact.size() > 300 ? compact.substr(0, 297) + "..." : compact;
}

}  // namespace accelopt::llm
