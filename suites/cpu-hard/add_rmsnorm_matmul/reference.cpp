// add_rmsnorm_matmul reference (double).
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void add_rmsnorm_matmul_reference(const double* x, const double* z, const double* g,
                                             const double* w, double* out, double eps,
                                             int64_t M, int64_t K, int64_t N) {
  std::vector<double> y(K);
  for (int64_t i = 0; i < M; ++i) {
    double sum_sq = 0.0;
    for (int64_t k = 0; k < K; ++k) {
      y[k] = x[i * K + k] + z[i * K + k];
      sum_sq += y[k] * y[k];
    }
    const double rms = std::sqrt(sum_sq / static_cast<double>(K) + eps);
    double* o = out + i * N;
    for (int64_t j = 0; j < N; ++j) o[j] = 0.0;
    for (int64_t k = 0; k < K; ++k) {
      const double yk = y[k] / rms * g[k];
      for (int64_t j = 0; j < N; ++j) o[j] += yk * w[k * N + j];
    }
  }
}
