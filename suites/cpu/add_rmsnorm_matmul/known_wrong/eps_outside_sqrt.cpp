// KNOWN WRONG (add_rmsnorm_matmul): sqrt(mean) + eps instead of sqrt(mean + eps); rejected by case tiny.
// check.py --known-wrong expects this kernel to be rejected.
// add_rmsnorm_matmul (known-wrong variant): y = x + z; y = y / sqrt(mean(y^2) + eps) * g per row;
// out = y @ w.  x, z: [M, K]; g: [K]; w: [K, N]; out: [M, N].
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void add_rmsnorm_matmul(const float* x, const float* z, const float* g,
                                   const float* w, float* out, float eps, int64_t M,
                                   int64_t K, int64_t N) {
  std::vector<float> y(K);
  for (int64_t i = 0; i < M; ++i) {
    float sum_sq = 0.0f;
    for (int64_t k = 0; k < K; ++k) {
      y[k] = x[i * K + k] + z[i * K + k];
      sum_sq += y[k] * y[k];
    }
    const float rms = (std::sqrt(sum_sq / static_cast<float>(K)) + eps);
    for (int64_t k = 0; k < K; ++k) y[k] = y[k] / rms * g[k];
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) acc += y[k] * w[k * N + j];
      out[i * N + j] = acc;
    }
  }
}
