#include <cmath>
#include <cstdint>
extern "C" void softmax(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    const float* r = x + i * N;
    float m = r[0];
    for (int64_t j = 1; j < N; ++j) m = r[j] > m ? r[j] : m;
    float s = 0;
    for (int64_t j = 0; j < N; ++j) {
      out[i * N + j] = std::exp(r[j] - m);
      s += out[i * N + j];
    }
    for (int64_t j = 0; j < N; ++j) out[i * N + j] /= s;
  }
}
