// matmul_add_rmsnorm reference (double).
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void matmul_add_rmsnorm_reference(const double* x, const double* w, const double* z,
                                             const double* g, double* out, double eps,
                                             int64_t M, int64_t K, int64_t N) {
  std::vector<double> y(N);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) y[j] = z[i * N + j];
    for (int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      for (int64_t j = 0; j < N; ++j) y[j] += xik * w[k * N + j];
    }
    double sum_sq = 0.0;
    for (int64_t j = 0; j < N; ++j) sum_sq += y[j] * y[j];
    const double rms = std::sqrt(sum_sq / static_cast<double>(N) + eps);
    for (int64_t j = 0; j < N; ++j) out[i * N + j] = y[j] * g[j] / rms;
  }
}
