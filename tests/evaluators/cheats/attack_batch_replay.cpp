// problem: softmax
// expect: wrong_result
// reason: exceeds tolerance | NaN
// settings: {"threads": 1}
// unbatched: ok
//
// (One thread: a single call of ~150 us keeps the judge batching even on a
// loaded machine, where a two-thread call can wait milliseconds for its
// second core and be timed unbatched, where this attack has nothing to
// replay. On a machine loaded past that -- a fresh clone's ctest beside two
// builds and a CPU hog: every correctness call took over 4 ms -- it is timed
// unbatched, does the honest work on every call and is rightly "ok".)
//
// Attack (class A, batches replay one case): a timed sample of the judge at
// 3a16638 is B calls on the same unchanged inputs, call i writing output slot
// i. The kernel remembers the output address of its first call (slot 0: the
// correctness calls are single calls), computes honestly whenever it writes
// slot 0 (tests/evaluators/kernels/avx2_softmax.cpp's code), and on any other
// slot copies slot 0's output, which holds the answer to the very same
// inputs. Every output is complete and exact, every check passes; a batch
// costs one softmax plus B-1 copies of 512 KB.
//
// Measured against the judge at 3a16638 (2-core Xeon, AVX-512; the same
// attack on the matmul test problem measured 2.84x over fast_matmul.cpp):
//   cd /work/main && /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/softmax \
//     --kernel tests/evaluators/cheats/attack_batch_replay.cpp \
//     --compare tests/evaluators/kernels/avx2_softmax.cpp --cache-dir /tmp/old-cache -o json
//   -> status ok in two runs, 1.67x and 1.63x faster than avx2_softmax.cpp measured
//      interleaved (~95% intervals 1.62-1.72x, 1.55-1.70x), calls_per_sample 25 and 32
// Under the round-3 judge every slot of a batch has inputs of its own (a
// pool case the runner process has never seen): the copy is another case's
// answer -> wrong_result.
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>

__attribute__((target("avx2,fma"))) static inline __m256 Exp(__m256 x) {
  __m256 t = _mm256_mul_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(1.44269504088896341f));
  __m256 n = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 y = _mm256_mul_ps(_mm256_sub_ps(t, n), _mm256_set1_ps(0.693147180559945309f));
  __m256 p = _mm256_set1_ps(1.0f / 720.0f);
  p = _mm256_fmadd_ps(p, y, _mm256_set1_ps(1.0f / 120.0f));
  p = _mm256_fmadd_ps(p, y, _mm256_set1_ps(1.0f / 24.0f));
  p = _mm256_fmadd_ps(p, y, _mm256_set1_ps(1.0f / 6.0f));
  p = _mm256_fmadd_ps(p, y, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, y, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, y, _mm256_set1_ps(1.0f));
  __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

__attribute__((target("avx2,fma"))) static void Row(const float* r, float* o, int64_t N) {
  int64_t j = 0;
  __m256 mv = _mm256_set1_ps(-INFINITY);
  for (; j + 8 <= N; j += 8) mv = _mm256_max_ps(mv, _mm256_loadu_ps(r + j));
  float lanes[8];
  _mm256_storeu_ps(lanes, mv);
  float m = lanes[0];
  for (int k = 1; k < 8; ++k) m = lanes[k] > m ? lanes[k] : m;
  for (int64_t k = j; k < N; ++k) m = r[k] > m ? r[k] : m;
  __m256 sv = _mm256_setzero_ps(), mm = _mm256_set1_ps(m);
  for (j = 0; j + 8 <= N; j += 8) {
    __m256 e = Exp(_mm256_sub_ps(_mm256_loadu_ps(r + j), mm));
    _mm256_storeu_ps(o + j, e);
    sv = _mm256_add_ps(sv, e);
  }
  double s = 0;
  _mm256_storeu_ps(lanes, sv);
  for (int k = 0; k < 8; ++k) s += lanes[k];
  for (int64_t k = j; k < N; ++k) { o[k] = std::exp(r[k] - m); s += o[k]; }
  const __m256 inv = _mm256_set1_ps(static_cast<float>(1.0 / s));
  for (j = 0; j + 8 <= N; j += 8) _mm256_storeu_ps(o + j, _mm256_mul_ps(_mm256_loadu_ps(o + j), inv));
  for (int64_t k = j; k < N; ++k) o[k] = static_cast<float>(o[k] / s);
}

namespace {
float* g_slot0 = nullptr;  // the output address of the first call ever: batch slot 0
}  // namespace

extern "C" void softmax(const float* x, float* out, int64_t M, int64_t N) {
  if (!g_slot0) g_slot0 = out;
  if (out != g_slot0) {  // calls 2..B of a batch: the same inputs as slot 0, just computed
    std::memcpy(out, g_slot0, sizeof(float) * static_cast<size_t>(M * N));
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < M; ++i) Row(x + i * N, out + i * N, N);
}
