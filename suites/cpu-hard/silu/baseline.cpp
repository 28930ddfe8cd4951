// silu baseline (cpu-hard): out = x / (1 + exp(-x)), elementwise over [M, N].
// OpenMP over the elements, 8 at a time with AVX2 (a vectorized expf).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

// exp(x) for 8 floats: Cephes' expf (range reduction by ln 2 in two parts, a
// degree-5 polynomial, 2^n through the exponent bits), about 1 ulp. The input
// is clamped to [-87, 88]: exp(-87) is 1.6e-38 (still normal), exp(88) 1.7e38.
static inline __m256 Exp8(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  const int64_t n = M * N, nv = n / 8 * 8;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nv; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 e = Exp8(_mm256_sub_ps(_mm256_setzero_ps(), v));
    _mm256_storeu_ps(out + i, _mm256_div_ps(v, _mm256_add_ps(_mm256_set1_ps(1.0f), e)));
  }
  for (int64_t i = nv; i < n; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
