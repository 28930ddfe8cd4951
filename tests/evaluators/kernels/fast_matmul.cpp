// problem: tests/evaluators/problems/matmul
// An honestly faster matmul: OpenMP over row blocks, cache blocking over K
// and N, and a 4-row register block whose inner loop the compiler vectorizes
// (AVX-512 / AVX2 FMAs with -O3 -march=native).
#include <algorithm>
#include <cstdint>

extern "C" void matmul(const float* A, const float* B, float* C, int64_t M, int64_t K, int64_t N) {
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
