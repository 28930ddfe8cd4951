// JSON helpers around nlohmann::json.
//
// LLM replies and child-process output may hold invalid UTF-8; plain dump()
// throws on it. Always serialize with Dump() below, which replaces bad bytes.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "base/status.hpp"

namespace accelopt {

using json = nlohmann::json;

// Compact (indent < 0) or pretty serialization; invalid UTF-8 becomes U+FFFD.
std::string Dump(const json& j, int indent = -1);

// Parses `text`; comments (// and /* */) are accepted when allow_comments.
// Errors come back as kInvalidArgument with the parser's position. Arrays and
// objects nested deeper than kMaxJsonDepth are an error too (copying or
// dumping such a value would recurse that deep and could overflow the stack).
inline constexpr int kMaxJsonDepth = 512;
Result<json> ParseJson(std::string_view text, bool allow_comments = false);

// Reads and parses a JSON file (comments allowed).
Result<json> ReadJsonFile(const std::string& path);

}  // namespace accelopt
