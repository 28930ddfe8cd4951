// gqa_full reference (double): softmax(q k^T / sqrt(D)) v per query head, with the
// row maximum subtracted before exp. Non-causal.
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void gqa_full_reference(const double* q, const double* k, const double* v,
                                   double* out, int64_t B, int64_t N, int64_t QH, int64_t KH,
                                   int64_t D) {
  const int64_t group = QH / KH;
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  std::vector<double> p(N);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < QH; ++h) {
      const int64_t kh = h / group;
      for (int64_t i = 0; i < N; ++i) {
        const double* qi = q + ((b * N + i) * QH + h) * D;
        double row_max = -INFINITY;
        for (int64_t j = 0; j < N; ++j) {
          const double* kj = k + ((b * N + j) * KH + kh) * D;
          double s = 0.0;
          for (int64_t d = 0; d < D; ++d) s += qi[d] * kj[d];
          p[j] = s * scale;
          row_max = std::fmax(row_max, p[j]);
        }
        double sum = 0.0;
        for (int64_t j = 0; j < N; ++j) {
          p[j] = std::exp(p[j] - row_max);
          sum += p[j];
        }
        double* o = out + ((b * QH + h) * N + i) * D;
        for (int64_t d = 0; d < D; ++d) o[d] = 0.0;
        for (int64_t j = 0; j < N; ++j) {
          const double* vj = v + ((b * N + j) * KH + kh) * D;
          const double w = p[j] / sum;
          for (int64_t d = 0; d < D; ++d) o[d] += w * vj[d];
        }
      }
    }
  }
}
