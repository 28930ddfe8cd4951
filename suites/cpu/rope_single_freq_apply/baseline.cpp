// rope_single_freq_apply baseline: rotate the two halves of x by (cos, sin).
// x and out are [2, Dh, T]; freqs_cos and freqs_sin are [Dh, T].
#include <cstdint>

extern "C" void rope_single_freq_apply(const float* x, const float* freqs_cos,
                                       const float* freqs_sin, float* out,
                                       int64_t Dh, int64_t T) {
  const float* x0 = x;
  const float* x1 = x + Dh * T;
  float* out0 = out;
  float* out1 = out + Dh * T;
  for (int64_t d = 0; d < Dh; ++d) {
    for (int64_t t = 0; t < T; ++t) {
      const int64_t i = d * T + t;
      const float c = freqs_cos[i];
      const float s = freqs_sin[i];
      out0[i] = x0[i] * c - x1[i] * s;
      out1[i] = x0[i] * s + x1[i] * c;
    }
  }
}
