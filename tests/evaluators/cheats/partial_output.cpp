// problem: silu
// expect: wrong_result
// reason: NaN/Inf
// Writes only the first half of the output.
#include <cmath>
#include <cstdint>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M * N / 2; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
