// rope_single_freq_apply baseline (cpu-hard): out0 = x0*cos - x1*sin,
// out1 = x0*sin + x1*cos over [Dh, T]; x and out are [2, Dh, T].
// OpenMP over the elements, 8 at a time with AVX2/FMA.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

extern "C" void rope_single_freq_apply(const float* x, const float* freqs_cos, const float* freqs_sin, float* out,
                                       int64_t Dh, int64_t T) {
  const int64_t n = Dh * T, nv = n / 8 * 8;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nv; i += 8) {
    const __m256 x0 = _mm256_loadu_ps(x + i), x1 = _mm256_loadu_ps(x + n + i);
    const __m256 c = _mm256_loadu_ps(freqs_cos + i), s = _mm256_loadu_ps(freqs_sin + i);
    _mm256_storeu_ps(out + i, _mm256_fmsub_ps(x0, c, _mm256_mul_ps(x1, s)));
    _mm256_storeu_ps(out + n + i, _mm256_fmadd_ps(x0, s, _mm256_mul_ps(x1, c)));
  }
  for (int64_t i = nv; i < n; ++i) {
    const float x0 = x[i], x1 = x[n + i];
    out[i] = x0 * freqs_cos[i] - x1 * freqs_sin[i];
    out[n + i] = x0 * freqs_sin[i] + x1 * freqs_cos[i];
  }
}
