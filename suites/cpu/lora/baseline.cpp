// lora baseline: out = x @ w + (x @ a) @ b (no scaling factor).
// x: [M, K]; w: [K, N]; a: [K, R]; b: [R, N]; out: [M, N].
#include <cstdint>
#include <vector>

extern "C" void lora(const float* x, const float* w, const float* a, const float* b,
                     float* out, int64_t M, int64_t K, int64_t N, int64_t R) {
  std::vector<float> xa(R);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t r = 0; r < R; ++r) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) acc += x[i * K + k] * a[k * R + r];
      xa[r] = acc;
    }
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) acc += x[i * K + k] * w[k * N + j];
      float low_rank = 0.0f;
      for (int64_t r = 0; r < R; ++r) low_rank += xa[r] * b[r * N + j];
      out[i * N + j] = acc + low_rank;
    }
  }
}
