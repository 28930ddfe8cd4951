// SHA-256 (OpenSSL 3) for content-addressed blobs and request hashes.
// Thread-safe: no shared state.
#pragma once

#include <string>
#include <string_view>

namespace accelopt {

// Lower-case hex digest (64 chars) of `data`.
std::string Sha256Hex(std::string_view data);

// Raw 32-byte digest of `data`.
std::string Sha256Raw(std::string_view data);

// Lower-case hex of arbitrary bytes.
std::string ToHex(std::string_view bytes);

}  // namespace accelopt
