// KNOWN WRONG (bmm_softmax): softmax without max subtraction; rejected by case large_scores.
// check.py --known-wrong expects this kernel to be rejected.
// bmm_softmax (known-wrong variant): out[b] = softmax_rows(lhs[b] @ rhs[b]), row max subtracted.
// lhs: [B, M, K]; rhs: [B, K, N]; out: [B, M, N].
#include <cmath>
#include <cstdint>

extern "C" void bmm_softmax(const float* lhs, const float* rhs, float* out, int64_t B,
                            int64_t M, int64_t K, int64_t N) {
  for (int64_t b = 0; b < B; ++b) {
    const float* l = lhs + b * M * K;
    const float* r = rhs + b * K * N;
    for (int64_t i = 0; i < M; ++i) {
      float* o = out + (b * M + i) * N;
      float row_max = -INFINITY;
      for (int64_t j = 0; j < N; ++j) {
        float acc = 0.0f;
        for (int64_t k = 0; k < K; ++k) acc += l[i * K + k] * r[k * N + j];
        o[j] = acc;
        if (acc > row_max) row_max = acc;
      }
      float sum = 0.0f;
      for (int64_t j = 0; j < N; ++j) {
        o[j] = std::exp(o[j]);
        sum += o[j];
      }
      for (int64_t j = 0; j < N; ++j) o[j] = o[j] / sum;
    }
  }
}
