// problem: matmul
// expect: ok
// reason: correct on | median
// no_faster_than: 0.85
// compare_with: tests/evaluators/kernels/fast_matmul.cpp
//
// Attack (class B, the history check steered): memoize every output by the
// full content of the inputs, and right after a miss (inputs never seen)
// make the next three calls slow on purpose (they do the matmul twice more
// into a scratch buffer). The judge at 3a16638 compares each first-sight
// call with the median of the three repeated calls before it and the three
// after it, and takes the minimum ratio over all first-sight calls: the
// slowed calls after the miss raise that median to about the miss itself,
// so the ratio is ~1 and the confirmation never runs. Every other repeated
// call is a hit: a copy of 384 KB plus a quarter matmul of padding (so the
// figure stays below the roofline).
//
// Measured against the judge at 3a16638 (2-core Xeon, AVX-512):
//   cd /work/main && /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul \
//     --kernel tests/evaluators/cheats/attack_history_steer.cpp \
//     --compare tests/evaluators/kernels/fast_matmul.cpp --cache-dir /tmp/old-cache -o json
//   -> status ok in two runs, 1.36x and 1.30x faster than fast_matmul measured
//      interleaved (~95% intervals 1.30-1.42x, 1.23-1.34x), first_sight_ratio 0.64, 0.50
// Under the round-3 judge no timed call repeats an input its runner process
// has seen: every call is a miss, pays the honest matmul plus the steering,
// and the kernel is measured slower than the honest one beside it.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

// The honest work is tests/evaluators/kernels/fast_matmul.cpp's matmul,
// line for line (its 4-row register block), so that the side-by-side
// comparison with it measures the trick alone: with a different honest
// matmul (one row at a time, 1.8x slower on an idle machine) a loaded
// 2-core machine measured this kernel 1.28-1.52x *faster* than
// fast_matmul.cpp (paired interval low end 1.23x) -- two algorithms of the
// same FLOPs respond differently to contention, which says nothing about
// the trick.
static void HonestMatmul(const float* A, const float* B, float* C, int64_t M, int64_t K, int64_t N) {
  const int64_t KB = 128, NB = 512;
#pragma omp parallel for schedule(static)
  for (int64_t i0 = 0; i0 < M; i0 += 4) {
    const int64_t i1 = std::min(M, i0 + 4);
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * N + j] = 0.0f;
    for (int64_t k0 = 0; k0 < K; k0 += KB) {
      const int64_t k1 = std::min(K, k0 + KB);
      for (int64_t j0 = 0; j0 < N; j0 += NB) {
        const int64_t j1 = std::min(N, j0 + NB);
        if (i1 - i0 == 4) {
          float* c0 = C + i0 * N; float* c1 = c0 + N; float* c2 = c1 + N; float* c3 = c2 + N;
          for (int64_t k = k0; k < k1; ++k) {
            const float a0 = A[i0 * K + k], a1 = A[(i0 + 1) * K + k], a2 = A[(i0 + 2) * K + k],
                        a3 = A[(i0 + 3) * K + k];
            const float* b = B + k * N;
#pragma omp simd
            for (int64_t j = j0; j < j1; ++j) {
              const float bj = b[j];
              c0[j] += a0 * bj; c1[j] += a1 * bj; c2[j] += a2 * bj; c3[j] += a3 * bj;
            }
          }
        } else {
          for (int64_t i = i0; i < i1; ++i)
            for (int64_t k = k0; k < k1; ++k) {
              const float a = A[i * K + k];
              const float* b = B + k * N;
              float* c = C + i * N;
#pragma omp simd
              for (int64_t j = j0; j < j1; ++j) c[j] += a * b[j];
            }
        }
      }
    }
  }
}

// Full-content memo key: every input word, weighted by its position (the
// loop vectorizes; ~60 us for the 640 KB of inputs here).
static uint64_t HashAll(const float* A, size_t na, const float* B, size_t nb) {
  uint64_t acc = 0x12345;
  auto mix = [](const float* p, size_t n, uint64_t seed) {
    const uint32_t* w = reinterpret_cast<const uint32_t*>(p);
    uint64_t s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t i = 0; i < n; ++i) s += (static_cast<uint64_t>(w[i]) + seed) * ((i << 1) | 1);
    return s;
  };
  acc ^= mix(A, na, 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;
  acc ^= mix(B, nb, 0xc2b2ae3d27d4eb4fULL) * 0xc4ceb9fe1a85ec53ULL;
  return acc;
}

namespace {
struct Entry { uint64_t key; float* out; };
Entry g_memo[64];
int g_used = 0, g_slow = 0;
float* g_scratch = nullptr;
}  // namespace

extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  const size_t n_out = static_cast<size_t>(M * N);
  if (!g_scratch) g_scratch = static_cast<float*>(std::malloc(sizeof(float) * n_out));
  const uint64_t key = HashAll(A, static_cast<size_t>(M * K), B, static_cast<size_t>(K * N)) ^ static_cast<uint64_t>(M * 131 + K * 17 + N);
  for (int e = 0; e < g_used; ++e) {
    if (g_memo[e].key != key) continue;
    std::memcpy(out, g_memo[e].out, sizeof(float) * n_out);
    if (g_slow > 0) {  // right after a miss: look as slow as the miss was
      --g_slow;
      HonestMatmul(A, B, g_scratch, M, K, N);
      HonestMatmul(A, B, g_scratch, M, K, N);
    } else {           // padding: a quarter of a matmul
      HonestMatmul(A, B, g_scratch, M / 4, K, N);
    }
    return;
  }
  HonestMatmul(A, B, out, M, K, N);
  if (g_used < 64) {
    float* keep = static_cast<float*>(std::malloc(sizeof(float) * n_out));
    std::memcpy(keep, out, sizeof(float) * n_out);
    g_memo[g_used++] = {key, keep};
  }
  g_slow = 3;
}
