// KNOWN WRONG (rmsnorm_matmul): adds an eps the problem does not have; rejected by case tiny.
// check.py --known-wrong expects this kernel to be rejected.
// rmsnorm_matmul (known-wrong variant): y = x / sqrt(mean(x^2)) per row (no eps, no gain); out = y @ w.
// x: [M, K]; w: [K, N]; out: [M, N].
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void rmsnorm_matmul(const float* x, const float* w, float* out, int64_t M,
                               int64_t K, int64_t N) {
  std::vector<float> y(K);
  for (int64_t i = 0; i < M; ++i) {
    float sum_sq = 0.0f;
    for (int64_t k = 0; k < K; ++k) sum_sq += x[i * K + k] * x[i * K + k];
    const float rms = std::sqrt(sum_sq / static_cast<float>(K) + 1e-6f);
    for (int64_t k = 0; k < K; ++k) y[k] = x[i * K + k] / rms;
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) acc += y[k] * w[k * N + j];
      out[i * N + j] = acc;
    }
  }
}
