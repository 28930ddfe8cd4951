// problem: silu
// expect: wrong_result
// reason: exceeds tolerance
// Computes once, then returns the cached answer for every later call.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
static float* cache = nullptr;
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  if (!cache) {
    cache = static_cast<float*>(std::malloc(sizeof(float) * M * N));
    for (int64_t i = 0; i < M * N; ++i) cache[i] = x[i] / (1.0f + std::exp(-x[i]));
  }
  std::memcpy(out, cache, sizeof(float) * M * N);
}
