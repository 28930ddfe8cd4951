// problem: silu
// expect: wrong_result
// reason: changed in place
// Recomputes only when the first and last inputs look different from last time.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
static float first[64], last_v[64];
static float* cache = nullptr;
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  int64_t n = M * N;
  if (cache && std::memcmp(first, x, sizeof first) == 0 && std::memcmp(last_v, x + n - 64, sizeof last_v) == 0) {
    std::memcpy(out, cache, sizeof(float) * n);
    return;
  }
  if (!cache) cache = static_cast<float*>(std::malloc(sizeof(float) * n));
  for (int64_t i = 0; i < n; ++i) cache[i] = x[i] / (1.0f + std::exp(-x[i]));
  std::memcpy(first, x, sizeof first);
  std::memcpy(last_v, x + n - 64, sizeof last_v);
  std::memcpy(out, cache, sizeof(float) * n);
}
