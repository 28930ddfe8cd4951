// adamw baseline (cpu-hard): one AdamW step over [M, N] into separate outputs.
// OpenMP over the elements, 8 at a time with AVX2/FMA (exact sqrt and divide).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

extern "C" void adamw(const float* theta, const float* g, const float* m, const float* v, float* theta_out,
                      float* m_out, float* v_out, float lr, float beta1, float beta2, float eps,
                      float weight_decay, float bias_correction1, float bias_correction2, int64_t M, int64_t N) {
  const int64_t n = M * N, nv = n / 8 * 8;
  const __m256 b1 = _mm256_set1_ps(beta1), b1c = _mm256_set1_ps(1.0f - beta1);
  const __m256 b2 = _mm256_set1_ps(beta2), b2c = _mm256_set1_ps(1.0f - beta2);
  const __m256 bc1 = _mm256_set1_ps(bias_correction1), bc2 = _mm256_set1_ps(bias_correction2);
  const __m256 veps = _mm256_set1_ps(eps), vlr = _mm256_set1_ps(lr), decay = _mm256_set1_ps(1.0f - lr * weight_decay);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nv; i += 8) {
    const __m256 gi = _mm256_loadu_ps(g + i);
    const __m256 mi = _mm256_fmadd_ps(b1, _mm256_loadu_ps(m + i), _mm256_mul_ps(b1c, gi));
    const __m256 vi = _mm256_fmadd_ps(b2, _mm256_loadu_ps(v + i), _mm256_mul_ps(_mm256_mul_ps(b2c, gi), gi));
    const __m256 m_hat = _mm256_div_ps(mi, bc1);
    const __m256 den = _mm256_add_ps(_mm256_sqrt_ps(_mm256_div_ps(vi, bc2)), veps);
    const __m256 t = _mm256_mul_ps(decay, _mm256_loadu_ps(theta + i));
    _mm256_storeu_ps(theta_out + i, _mm256_sub_ps(t, _mm256_div_ps(_mm256_mul_ps(vlr, m_hat), den)));
    _mm256_storeu_ps(m_out + i, mi);
    _mm256_storeu_ps(v_out + i, vi);
  }
  for (int64_t i = nv; i < n; ++i) {
    const float mi = beta1 * m[i] + (1.0f - beta1) * g[i];
    const float vi = beta2 * v[i] + (1.0f - beta2) * g[i] * g[i];
    theta_out[i] = theta[i] - lr * weight_decay * theta[i] -
                   lr * (mi / bias_correction1) / (std::sqrt(vi / bias_correction2) + eps);
    m_out[i] = mi;
    v_out[i] = vi;
  }
}
