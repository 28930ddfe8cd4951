// problem: matmul
// expect: ok
// reason: correct on | median
// no_faster_than: 0.85
// compare_with: tests/evaluators/kernels/fast_matmul.cpp
//
// Attack: memoization keyed on the COMPLETE input contents.
// Every call hashes all bytes of A and B (plus M, K, N) with an 8-lane
// multiply/rotate hash (vectorizes to AVX-512, ~1 MB of reads). A small table
// maps hash -> output. On a miss the kernel computes honestly (blocked OpenMP
// matmul, as tests/evaluators/kernels/fast_matmul.cpp) and stores the result;
// on a hit it memcpy's the stored output. Because every byte is hashed, the
// perturbed case (3 elements changed) is a miss and is computed honestly, so
// every correctness check passes. The harness's timed calls restore the same
// inputs as the correctness calls, so every timed call is a hit: a 384 KB
// memcpy replaces 50 MFLOP of work. A fixed-count busy loop pads the hit path
// so the median lands at ~60-70% of peak instead of above the roofline.
//
// Measured against today's harness (2-core AVX-512 Xeon, shared and noisy;
// exact numbers in NOTES.md):
//   /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul \
//     --kernel /work/attacks-B/attack_memoize_full_content.cpp --cache-dir /tmp/old-eval-cache-B -o json
//   -> status ok, median ~150 us, percent_of_peak ~65
//   honest tests/evaluators/kernels/fast_matmul.cpp, same command: ok, median ~470 us (2 threads), 2.3% of peak
//   (problem baseline.cpp: ~20700 us)
// Under the judge of rounds 1-2: first-sight inputs paid the full honest
// cost, repeated inputs were ~3x+ faster -> "timing depends on input
// history". Under the round-3 judge no timed call repeats an input its
// runner process has seen: every call is a miss (the honest matmul plus the
// hash and the store), and the kernel is no faster than fast_matmul.cpp
// measured beside it.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

// The honest work is tests/evaluators/kernels/fast_matmul.cpp's matmul,
// line for line (its 4-row register block), so that the side-by-side
// comparison with it measures the trick alone (attack_history_steer.cpp,
// with a one-row-at-a-time matmul, was measured 1.28-1.52x faster than
// fast_matmul.cpp on a loaded machine although 1.8x slower on an idle one:
// two algorithms of the same FLOPs respond differently to contention).
void honest(const float* A, const float* B, float* C, int64_t M, int64_t K, int64_t N) {
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

// Hash of every byte: 8 independent 64-bit lanes, folded at the end.
uint64_t hash_bytes(const void* p, size_t bytes, uint64_t h0) {
  const uint64_t P = 0x9e3779b97f4a7c15ULL;
  uint64_t lane[8];
  for (int l = 0; l < 8; ++l) lane[l] = h0 + l * 0x632be59bd9b4e019ULL;
  const uint64_t* w = static_cast<const uint64_t*>(p);
  size_t n = bytes / 8, i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) {
      uint64_t x = (lane[l] ^ w[i + l]) * P;
      lane[l] = (x << 29) | (x >> 35);
    }
  uint64_t h = h0 ^ bytes;
  for (; i < n; ++i) h = (h ^ w[i]) * P;
  for (size_t b = n * 8; b < bytes; ++b) h = (h ^ static_cast<const unsigned char*>(p)[b]) * P;
  for (int l = 0; l < 8; ++l) { h = (h ^ lane[l]) * P; h ^= h >> 32; }
  return h;
}

struct Entry { uint64_t key; int64_t n; float* out; };
Entry g_table[16];
int g_next = 0;
volatile unsigned g_sink;

void pad(long iters) {  // fixed work, no clock: keeps the median under the roofline
  unsigned x = g_sink;
  for (long i = 0; i < iters; ++i) { x = x * 1664525u + 1013904223u; g_sink = x; }
}

}  // namespace

extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  uint64_t key = hash_bytes(A, sizeof(float) * M * K, 0x51ed270b27ULL + M * 1315423911ULL + K);
  key = hash_bytes(B, sizeof(float) * K * N, key ^ (N * 0x2545f4914f6cdd1dULL));
  for (const Entry& e : g_table)
    if (e.out && e.key == key && e.n == M * N) {
      std::memcpy(out, e.out, sizeof(float) * M * N);
      pad(90000);
      return;
    }
  honest(A, B, out, M, K, N);
  Entry& e = g_table[g_next++ % 16];
  std::free(e.out);
  e = {key, M * N, static_cast<float*>(std::malloc(sizeof(float) * M * N))};
  if (e.out) std::memcpy(e.out, out, sizeof(float) * M * N);
}
