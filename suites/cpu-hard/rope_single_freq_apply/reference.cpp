// rope_single_freq_apply reference (double).
#include <cstdint>

extern "C" void rope_single_freq_apply_reference(const double* x, const double* freqs_cos,
                                                 const double* freqs_sin, double* out,
                                                 int64_t Dh, int64_t T) {
  const int64_t n = Dh * T;
  for (int64_t i = 0; i < n; ++i) {
    const double x0 = x[i], x1 = x[n + i];
    out[i] = x0 * freqs_cos[i] - x1 * freqs_sin[i];
    out[n + i] = x0 * freqs_sin[i] + x1 * freqs_cos[i];
  }
}
