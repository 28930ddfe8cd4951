// JSON helpers around nlohmann::json.
//
// LLM replies and child-process output may hold invalid UTF-8; plain dump()
// throws on it. Always serialize with Dump() below, which replaces bad bytes.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
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

class Env;
// Reads (through `env`) and parses a JSON file (comments allowed). A read
// failure keeps the Env's status; a parse error is kInvalidArgument naming
// the file.
Result<json> ReadJsonFile(Env* env, const std::string& path);
// The same with Env::Default().
Result<json> ReadJsonFile(const std::string& path);

// The one convention for decoding a value from JSON: a static
// `Result<X> X::FromJson(const json&)` that refuses a wrong shape with a
// Status (kInvalidArgument unless said otherwise), never with a throw; a
// caller that needs another code (a fold: kCorruption) maps it. (`ParseX`
// reads a document a person wrote, a config or a spec, naming its file.)
//
// DecodeJsonFields runs `read` — code that reads fields with .at()/.get<T>(),
// which throw json::exception on a missing key or another type — and turns
// such a throw into kInvalidArgument "<what>: <the exception's message>".
template <typename F>
Status DecodeJsonFields(std::string_view what, F&& read) {
  try {
    read();
  } catch (const json::exception& e) {
    return InvalidArgument(std::string(what) + ": " + e.what());
  }
  return Status::Ok();
}

// True when `v` is a JSON integer that T holds exactly (no wrap-around:
// 4294967297 does not fit an int, -1 does not fit an unsigned).
template <typename T>
bool IntegerFits(const json& v) {
  static_assert(std::is_integral_v<T>);
  if (v.is_number_unsigned()) {
    return v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  }
  if (!v.is_number_integer()) return false;
  const int64_t x = v.get<int64_t>();
  if constexpr (std::is_signed_v<T>) {
    return x >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           x <= static_cast<int64_t>(std::numeric_limits<T>::max());
  } else {
    return x >= 0 && static_cast<uint64_t>(x) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  }
}

}  // namespace accelopt
