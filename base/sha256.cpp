#include "base/sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace accelopt {

std::string Sha256Raw(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out, &len, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("EVP_Digest(sha256) failed");
  }
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string ToHex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

std::string Sha256Hex(std::string_view data) { return ToHex(Sha256Raw(data)); }

}  // namespace accelopt
