// bmm reference (double accumulation).
#include <cstdint>

extern "C" void bmm_reference(const double* lhs, const double* rhs, double* out, int64_t B,
                              int64_t M, int64_t K, int64_t N) {
  for (int64_t b = 0; b < B; ++b) {
    const double* l = lhs + b * M * K;
    const double* r = rhs + b * K * N;
    for (int64_t i = 0; i < M; ++i) {
      double* o = out + (b * M + i) * N;
      for (int64_t j = 0; j < N; ++j) o[j] = 0.0;
      for (int64_t k = 0; k < K; ++k) {
        const double lik = l[i * K + k];
        for (int64_t j = 0; j < N; ++j) o[j] += lik * r[k * N + j];
      }
    }
  }
}
