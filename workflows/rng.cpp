#include "workflows/rng.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "base/sha256.hpp"

namespace accelopt::workflows {

Rng::Rng(uint64_t seed, std::string_view key) {
  std::string material = std::to_string(seed);
  material += '\0';
  material.append(key);
  const std::string digest = Sha256Raw(material);
  state_ = 0;
  for (int i = 0; i < 8; ++i) state_ = (state_ << 8) | static_cast<unsigned char>(digest[i]);
}

uint64_t Rng::NextU64() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rng::Uniform(uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // reject the biased tail
  uint64_t x;
  do {
    x = NextU64();
  } while (x >= limit);
  return x % n;
}

std::vector<size_t> Rng::Sample(size_t n, size_t m) {
  m = std::min(m, n);
  std::vector<size_t> pool(n);
  std::iota(pool.begin(), pool.end(), 0);
  for (size_t i = 0; i < m; ++i) std::swap(pool[i], pool[i + Uniform(n - i)]);
  pool.resize(m);
  return pool;
}

}  // namespace accelopt::workflows
