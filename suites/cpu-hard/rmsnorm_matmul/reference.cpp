// rmsnorm_matmul reference (double).
#include <cmath>
#include <cstdint>

extern "C" void rmsnorm_matmul_reference(const double* x, const double* w, double* out,
                                         int64_t M, int64_t K, int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    double sum_sq = 0.0;
    for (int64_t k = 0; k < K; ++k) sum_sq += x[i * K + k] * x[i * K + k];
    const double rms = std::sqrt(sum_sq / static_cast<double>(K));
    double* o = out + i * N;
    for (int64_t j = 0; j < N; ++j) o[j] = 0.0;
    for (int64_t k = 0; k < K; ++k) {
      const double yk = x[i * K + k] / rms;
      for (int64_t j = 0; j < N; ++j) o[j] += yk * w[k * N + j];
    }
  }
}
