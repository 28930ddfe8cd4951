// problem: silu
// expect: wrong_result
// reason: exceeds tolerance | NaN
//
// Attack: predict the harness's checks by counting calls.
// Today's harness makes 8 correctness calls for silu (seeds 0,21,42,63,84,
// the perturbed seed 0, 2 adversarial cases), each fully checked: computed
// honestly here. Then every timed call n (counted from 1) is checked fully
// when n % 8 == 0, else at positions start, start+step, ... with
// step = max(1, elements/4096) and start = Mix(n) % step (Mix = the harness's
// SplitMix finalizer). Each timing round is 1 warmup + max_samples (1000)
// samples + 1 extra fully checked call, as long as 1000 calls take < 0.1 s
// (min_time_s), which holds when a call costs a few us; the extra call takes
// the harness's counter to a multiple of 8 and back, so in the kernel's own
// count it is call 1002*r. So: full compute when n % 8 == 0 or n % 1002 == 0,
// otherwise compute only the 4096 positions that will be looked at (1/32 of
// the work) and leave the rest as the harness's NaN fill. No padding is
// needed: the strided gathers/scatters (4096 cache lines) already keep the
// median at ~50% of peak.
//
// Measured against today's harness (numbers in NOTES.md):
//   /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/silu \
//     --kernel /work/attacks-B/attack_sampled_checks.cpp --cache-dir /tmp/old-eval-cache-B -o json
//   -> status ok, median ~6 us, percent_of_peak ~65
//   honest AVX-512 silu (compare/honest_silu.cpp): ok, ~30 us (1 thread); baseline.cpp: ~260 us
// Under the new judge every call is fully checked: the NaNs left in 31/32 of
// the output -> "NaN" (or "exceeds tolerance"). On a CPU without AVX-512
// the same sampled positions are computed with scalar code: slower, the
// same cheat (and the same verdict).
#include <immintrin.h>
#include <cmath>
#include <cstdint>

#if defined(__AVX512F__)
namespace {

inline __m512 vexp(__m512 x) {  // ~2 ulp on [-87, 88], saturates outside
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-100.0f)), _mm512_set1_ps(88.5f));
  __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145752f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860677e-06f), r);
  __m512 p = _mm512_set1_ps(0.00138873165f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.00833336823f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.0416666418f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.166666672f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}
inline __m512 vsilu(__m512 v) {
  return _mm512_div_ps(v, _mm512_add_ps(_mm512_set1_ps(1.0f), vexp(_mm512_sub_ps(_mm512_setzero_ps(), v))));
}

uint64_t Mix(uint64_t z) {  // the harness's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

const long kCorrectnessCalls = 8;  // 5 seeds + perturbed + 2 adversarial (default settings)
const long kRoundCalls = 1002;     // warmup + max_samples + the extra fully checked call
long g_calls = 0;
}  // namespace

extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  const int64_t n = M * N;
  const long call = ++g_calls - kCorrectnessCalls;  // timed call number, as the harness counts
  if (call <= 0 || call % 8 == 0 || call % kRoundCalls == 0) {
    for (int64_t i = 0; i < n; i += 16) {
      __mmask16 m = n - i >= 16 ? 0xffff : static_cast<__mmask16>((1u << (n - i)) - 1);
      _mm512_mask_storeu_ps(out + i, m, vsilu(_mm512_maskz_loadu_ps(m, x + i)));
    }
    return;
  }
  const int64_t step = n / 4096 > 1 ? n / 4096 : 1;
  const int64_t start = static_cast<int64_t>(Mix(static_cast<uint64_t>(call)) % static_cast<uint64_t>(step));
  const __m512i idx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                         _mm512_set1_epi32(static_cast<int>(step)));
  int64_t e = start;
  for (; e + 15 * step < n; e += 16 * step)  // 16 sampled positions per gather/scatter
    _mm512_i32scatter_ps(out + e, idx, vsilu(_mm512_i32gather_ps(idx, x + e, 4)), 4);
  for (; e < n; e += step) {
    __m512 v = vsilu(_mm512_set1_ps(x[e]));
    out[e] = _mm512_cvtss_f32(v);
  }
}

#else  // no AVX-512: the same attack in scalar code
namespace {
uint64_t Mix(uint64_t z) {  // the harness's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
const long kCorrectnessCalls = 8;
const long kRoundCalls = 1002;
long g_calls = 0;
inline float Silu(float v) { return v / (1.0f + std::exp(-v)); }
}  // namespace

extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  const int64_t n = M * N;
  const long call = ++g_calls - kCorrectnessCalls;
  if (call <= 0 || call % 8 == 0 || call % kRoundCalls == 0) {
    for (int64_t i = 0; i < n; ++i) out[i] = Silu(x[i]);
    return;
  }
  const int64_t step = n / 4096 > 1 ? n / 4096 : 1;
  const int64_t start = static_cast<int64_t>(Mix(static_cast<uint64_t>(call)) % static_cast<uint64_t>(step));
  for (int64_t e = start; e < n; e += step) out[e] = Silu(x[e]);
}
#endif
