#include <cmath>
#include <cstdint>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float v = x[i * N + j];
      out[i * N + j] = v / (1.0f + std::exp(-v));
    }
}
