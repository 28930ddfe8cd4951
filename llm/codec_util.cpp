#include "llm/codec.hpp"

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
  if (j->is_number_integer() || j->is_number_unsigned()) return j->get<int64_t>();
  if (j->is_number_float()) return static_cast<int64_t>(j->get<double>());
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
  return "";
}

}  // namespace accelopt::llm
