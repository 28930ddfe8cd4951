// matmul baseline: out = lhs @ rhs, textbook triple loop.
// lhs: [M, K]; rhs: [K, N]; out: [M, N].
#include <cstdint>

extern "C" void matmul(const float* lhs, const float* rhs, float* out, int64_t M, int64_t K,
                       int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) acc += lhs[i * K + k] * rhs[k * N + j];
      out[i * N + j] = acc;
    }
  }
}
