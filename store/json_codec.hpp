// A compact binary encoding of JSON values, used for event data on disk.
//
// Decoding it builds the nlohmann::json tree directly, with no lexing or
// number parsing, which makes replay several times faster than parsing JSON
// text; numbers keep their exact type and bits, strings their exact bytes.
//
//   value  = tag:u8 payload
//   0 null | 1 false | 2 true | 3 int64 (8 bytes LE) | 4 uint64 (8 bytes LE)
//   5 double (8 bytes LE, IEEE) | 6 string: varint length, bytes
//   7 array: varint count, values | 8 object: varint count, (varint length,
//   key bytes, value)* in key order
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::store {

// Appends the encoding of `j`. InvalidArgument for binary values (nlohmann's
// byte arrays), which have no JSON form, and for nesting deeper than 256.
Status EncodeJsonBinary(const json& j, std::string* out);

// Decodes one value that must span all of `bytes`. Corruption otherwise.
Result<json> DecodeJsonBinary(std::string_view bytes);
// Same, into `out` (replacing what it held).
Status DecodeJsonBinaryInto(std::string_view bytes, json* out);

}  // namespace accelopt::store
