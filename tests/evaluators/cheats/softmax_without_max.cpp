// problem: softmax
// expect: wrong_result
// reason: adversarial
// Skips the max-subtraction: fine on N(0,1) inputs, overflows on large ones.
#include <cmath>
#include <cstdint>
extern "C" void softmax(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    float s = 0;
    for (int64_t j = 0; j < N; ++j) { out[i * N + j] = std::exp(x[i * N + j]); s += out[i * N + j]; }
    for (int64_t j = 0; j < N; ++j) out[i * N + j] /= s;
  }
}
