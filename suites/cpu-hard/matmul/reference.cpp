// matmul reference (double accumulation).
#include <cstdint>

extern "C" void matmul_reference(const double* lhs, const double* rhs, double* out, int64_t M,
                                 int64_t K, int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    double* o = out + i * N;
    for (int64_t j = 0; j < N; ++j) o[j] = 0.0;
    for (int64_t k = 0; k < K; ++k) {
      const double lik = lhs[i * K + k];
      for (int64_t j = 0; j < N; ++j) o[j] += lik * rhs[k * N + j];
    }
  }
}
