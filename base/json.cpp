#include "base/json.hpp"

#include <fstream>
#include <sstream>

namespace accelopt {

std::string Dump(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

Result<json> ParseJson(std::string_view text, bool allow_comments) {
  try {
    return json::parse(text.begin(), text.end(), nullptr, true, allow_comments);
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("invalid JSON: ") + e.what());
  }
}

Result<json> ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto r = ParseJson(ss.str(), /*allow_comments=*/true);
  if (!r.ok()) return r.status().WithContext(path);
  return r;
}

}  // namespace accelopt
