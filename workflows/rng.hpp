// Deterministic randomness for workflows: a small PRNG (splitmix64) whose
// state comes from sha256(seed, key). The key names what the randomness is
// for (an activity id, "p0/it3/memory"), so a replay — or a resumed run that
// decides things in another order — draws exactly the same numbers.
// Never seeded from the clock or the OS.
//
// Thread safety: an Rng is a plain value; do not share one between threads.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace accelopt::workflows {

class Rng {
 public:
  Rng(uint64_t seed, std::string_view key);

  uint64_t NextU64();
  // Uniform in [0, n). REQUIRES: n > 0. Unbiased (rejection sampling).
  uint64_t Uniform(uint64_t n);

  // Fisher-Yates shuffle in place.
  template <typename T>
  void Shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[Uniform(i)]);
  }

  // m distinct indices out of [0, n), in drawn order (like Python's
  // random.sample). m is clamped to n.
  std::vector<size_t> Sample(size_t n, size_t m);

 private:
  uint64_t state_;
};

}  // namespace accelopt::workflows
