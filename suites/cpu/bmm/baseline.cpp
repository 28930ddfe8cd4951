// bmm baseline: out[b] = lhs[b] @ rhs[b], textbook triple loop.
// lhs: [B, M, K]; rhs: [B, K, N]; out: [B, M, N].
#include <cstdint>

extern "C" void bmm(const float* lhs, const float* rhs, float* out, int64_t B, int64_t M,
                    int64_t K, int64_t N) {
  for (int64_t b = 0; b < B; ++b) {
    const float* l = lhs + b * M * K;
    const float* r = rhs + b * K * N;
    float* o = out + b * M * N;
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        float acc = 0.0f;
        for (int64_t k = 0; k < K; ++k) acc += l[i * K + k] * r[k * N + j];
        o[i * N + j] = acc;
      }
    }
  }
}
