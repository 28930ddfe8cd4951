// LEB128 varints as the store's record and JSON codecs write them: 7 bits per
// byte, low bits first, the high bit set on every byte but the last.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace accelopt::store {

inline void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

}  // namespace accelopt::store
