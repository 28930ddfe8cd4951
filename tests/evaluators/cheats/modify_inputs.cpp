// problem: silu
// expect: wrong_result
// reason: modified input 'x'
// Correct output, but it uses the input as scratch space.
#include <cmath>
#include <cstdint>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  float* scratch = const_cast<float*>(x);
  for (int64_t i = 0; i < M * N; ++i) {
    out[i] = x[i] / (1.0f + std::exp(-x[i]));
    scratch[i] = 0;
  }
}
