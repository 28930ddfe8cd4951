// problem: silu
// expect: static_check_failed
// reason: clocks
// Looks at the clock (e.g. to behave differently while being timed).
#include <chrono>
#include <cmath>
#include <cstdint>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  auto t = std::chrono::steady_clock::now().time_since_epoch().count();
  for (int64_t i = 0; i < M * N; ++i) out[i] = (t & 1 ? 1.0f : 1.0f) * x[i] / (1.0f + std::exp(-x[i]));
}
