#include <cstdint>
extern "C" void matmul_reference(const double* A, const double* B, double* out, int64_t M, int64_t K, int64_t N) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
      out[i * N + j] = acc;
    }
}
