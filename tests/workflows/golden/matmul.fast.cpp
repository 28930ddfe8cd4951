#include <cstdint>

extern "C" void matmul(const float* __restrict lhs, const float* __restrict rhs, float* __restrict out,
                       int64_t M, int64_t K, int64_t N) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) out[i * N + j] = 0.0f;
    for (int64_t k = 0; k < K; ++k) {
      const float a = lhs[i * K + k];
      for (int64_t j = 0; j < N; ++j) out[i * N + j] += a * rhs[k * N + j];
    }
  }
}
