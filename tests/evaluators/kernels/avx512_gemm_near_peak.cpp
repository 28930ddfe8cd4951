// problem: tests/evaluators/problems/matmul
// requires: avx512f
//
// An honest matmul written to run near the machine's FMA peak: AVX-512F,
// an 8 x 32 register tile (16 zmm accumulators, 2 loads of B and 8
// broadcasts of A per 16 FMAs), OpenMP over 32-column strips of B so each
// thread's strip (K x 32 floats) stays in its L1/L2 while every 8-row block
// of A streams past it. fp32 FMAs only (no BF16, VNNI or AMX: the judge
// refuses those). Round 4 of the judge: such a kernel runs close to the
// calibrated peak, so a calibration that comes out low must not flag it
// (the roofline's 10% slack and the calibration's best-of-trials peak).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace {

__attribute__((target("avx512f"))) void Tile8x32(const float* A, const float* B, float* C, int64_t i0, int64_t j0,
                                                 int64_t K, int64_t N) {
  __m512 c[8][2];
  for (int r = 0; r < 8; ++r) c[r][0] = c[r][1] = _mm512_setzero_ps();
  const float* a = A + i0 * K;
  for (int64_t k = 0; k < K; ++k) {
    const __m512 b0 = _mm512_loadu_ps(B + k * N + j0), b1 = _mm512_loadu_ps(B + k * N + j0 + 16);
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) {
      const __m512 x = _mm512_set1_ps(a[r * K + k]);
      c[r][0] = _mm512_fmadd_ps(x, b0, c[r][0]);
      c[r][1] = _mm512_fmadd_ps(x, b1, c[r][1]);
    }
  }
  for (int r = 0; r < 8; ++r) {
    _mm512_storeu_ps(C + (i0 + r) * N + j0, c[r][0]);
    _mm512_storeu_ps(C + (i0 + r) * N + j0 + 16, c[r][1]);
  }
}

void Plain(const float* A, const float* B, float* C, int64_t i, int64_t j, int64_t K, int64_t N) {
  float acc = 0;
  for (int64_t k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
  C[i * N + j] = acc;
}

}  // namespace

extern "C" void matmul(const float* A, const float* B, float* C, int64_t M, int64_t K, int64_t N) {
  const int64_t strips = N / 32, rows = M / 8 * 8;
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < strips; ++s) {
    for (int64_t i0 = 0; i0 < rows; i0 += 8) Tile8x32(A, B, C, i0, s * 32, K, N);
    for (int64_t i = rows; i < M; ++i)
      for (int64_t j = s * 32; j < s * 32 + 32; ++j) Plain(A, B, C, i, j, K, N);
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = strips * 32; j < N; ++j) Plain(A, B, C, i, j, K, N);
}
