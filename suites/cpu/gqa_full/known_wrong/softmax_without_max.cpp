// KNOWN WRONG (gqa_full): softmax without max subtraction; rejected by case large_scores.
// check.py --known-wrong expects this kernel to be rejected.
// gqa_full (known-wrong variant): non-causal grouped-query attention, one query row at a time.
// q: [B, N, QH, D]; k, v: [B, N, KH, D]; out: [B, QH, N, D].
// Query head h reads key/value head h / (QH / KH).
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void gqa_full(const float* q, const float* k, const float* v, float* out,
                         int64_t B, int64_t N, int64_t QH, int64_t KH, int64_t D) {
  const int64_t group = QH / KH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  std::vector<float> p(N);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < QH; ++h) {
      const int64_t kh = h / group;
      for (int64_t i = 0; i < N; ++i) {
        const float* qi = q + ((b * N + i) * QH + h) * D;
        float row_max = -INFINITY;
        for (int64_t j = 0; j < N; ++j) {
          const float* kj = k + ((b * N + j) * KH + kh) * D;
          float s = 0.0f;
          for (int64_t d = 0; d < D; ++d) s += qi[d] * kj[d];
          s *= scale;
          p[j] = s;
          if (s > row_max) row_max = s;
        }
        float sum = 0.0f;
        for (int64_t j = 0; j < N; ++j) {
          p[j] = std::exp(p[j]);
          sum += p[j];
        }
        float* o = out + ((b * QH + h) * N + i) * D;
        for (int64_t d = 0; d < D; ++d) {
          float acc = 0.0f;
          for (int64_t j = 0; j < N; ++j) acc += p[j] * v[((b * N + j) * KH + kh) * D + d];
          o[d] = acc / sum;
        }
      }
    }
  }
}
