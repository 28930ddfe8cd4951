// KNOWN WRONG (silu): sigmoid as exp(x)/(1+exp(x)) gives inf/inf; rejected by case large.
// check.py --known-wrong expects this kernel to be rejected.
// silu (known-wrong variant): out = x / (1 + exp(-x)), elementwise, fp32.
#include <cmath>
#include <cstdint>

extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      const float v = x[i * N + j];
      out[i * N + j] = v * std::exp(v) / (1.0f + std::exp(v));
    }
  }
}
