// problem: silu
// expect: static_check_failed
// reason: does not define extern "C" silu
#include <cmath>
#include <cstdint>
void silu(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
