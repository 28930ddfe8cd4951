// mamba baseline (cpu-hard): the Mamba-v1 selective scan.
//   h[s] = exp(delta[ch][t] * a[ch][s]) * h[s] + delta[ch][t] * b[s][t] * u[ch][t]
//   out[ch][t] = sum_s c[s][t] * h[s]
// delta, u, out: [C, M]; a: [C, S]; b, c: [S, M]; h starts at zero.
// b and c are transposed once to [M, S] (each step reads its S values
// contiguously); then OpenMP over channels, the S states of a channel in
// AVX2 registers (8 per vector, a vectorized expf), sequential in t. S not a
// multiple of 8 (or above 32) takes a scalar loop.
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

static inline float HSum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

static inline float HMax8(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

template <int NV>
static void Channel(const float* delta, const float* u, const float* a, const float* bt, const float* ct, float* out,
                    int64_t M) {
  constexpr int64_t S = 8 * NV;
  __m256 h[NV], av[NV];
  for (int v = 0; v < NV; ++v) {
    h[v] = _mm256_setzero_ps();
    av[v] = _mm256_loadu_ps(a + 8 * v);
  }
  for (int64_t t = 0; t < M; ++t) {
    const __m256 dt = _mm256_set1_ps(delta[t]), du = _mm256_set1_ps(delta[t] * u[t]);
    __m256 y = _mm256_setzero_ps();
    for (int v = 0; v < NV; ++v) {
      const __m256 da = Exp8(_mm256_mul_ps(dt, av[v]));
      h[v] = _mm256_fmadd_ps(da, h[v], _mm256_mul_ps(du, _mm256_loadu_ps(bt + t * S + 8 * v)));
      y = _mm256_fmadd_ps(_mm256_loadu_ps(ct + t * S + 8 * v), h[v], y);
    }
    out[t] = HSum8(y);
  }
}

extern "C" void mamba(const float* delta, const float* u, const float* a, const float* b, const float* c, float* out,
                      int64_t C, int64_t S, int64_t M) {
  if (S % 8 != 0 || S > 32) {
#pragma omp parallel
    {
      float* h = static_cast<float*>(std::malloc(sizeof(float) * S));
#pragma omp for schedule(dynamic, 1)
      for (int64_t ch = 0; ch < C; ++ch) {
        for (int64_t s = 0; s < S; ++s) h[s] = 0.0f;
        for (int64_t t = 0; t < M; ++t) {
          const float dt = delta[ch * M + t], ut = u[ch * M + t];
          float y = 0.0f;
          for (int64_t s = 0; s < S; ++s) {
            h[s] = std::exp(dt * a[ch * S + s]) * h[s] + dt * b[s * M + t] * ut;
            y += c[s * M + t] * h[s];
          }
          out[ch * M + t] = y;
        }
      }
      std::free(h);
    }
    return;
  }
  float* bt = static_cast<float*>(std::malloc(sizeof(float) * M * S));
  float* ct = static_cast<float*>(std::malloc(sizeof(float) * M * S));
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t t = 0; t < M; ++t)
      for (int64_t s = 0; s < S; ++s) {
        bt[t * S + s] = b[s * M + t];
        ct[t * S + s] = c[s * M + t];
      }
#pragma omp for schedule(dynamic, 1)
    for (int64_t ch = 0; ch < C; ++ch) {
      const float *d = delta + ch * M, *uc = u + ch * M, *ac = a + ch * S;
      switch (S / 8) {
        case 1: Channel<1>(d, uc, ac, bt, ct, out + ch * M, M); break;
        case 2: Channel<2>(d, uc, ac, bt, ct, out + ch * M, M); break;
        case 3: Channel<3>(d, uc, ac, bt, ct, out + ch * M, M); break;
        default: Channel<4>(d, uc, ac, bt, ct, out + ch * M, M); break;
      }
    }
  }
  std::free(bt);
  std::free(ct);
}
