// KNOWN WRONG (matmul_add_rmsnorm): drops eps; rejected by case tiny.
// check.py --known-wrong expects this kernel to be rejected.
// matmul_add_rmsnorm (known-wrong variant): y = x @ w + z; out = y * g / sqrt(mean(y^2) + eps) per row.
// x: [M, K]; w: [K, N]; z: [M, N]; g: [N]; out: [M, N].
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void matmul_add_rmsnorm(const float* x, const float* w, const float* z,
                                   const float* g, float* out, float eps, int64_t M,
                                   int64_t K, int64_t N) {
  std::vector<float> y(N);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) acc += x[i * K + k] * w[k * N + j];
      y[j] = acc + z[i * N + j];
    }
    float sum_sq = 0.0f;
    for (int64_t j = 0; j < N; ++j) sum_sq += y[j] * y[j];
    const float rms = std::sqrt(sum_sq / static_cast<float>(N));
    for (int64_t j = 0; j < N; ++j) out[i * N + j] = y[j] * g[j] / rms;
  }
}
