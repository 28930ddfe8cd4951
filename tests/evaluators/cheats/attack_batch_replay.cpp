// problem: matmul
// expect: wrong_result
// reason: exceeds tolerance | NaN
//
// Attack (class A, batches replay one case): a timed sample of the judge at
// 3a16638 is B calls on the same unchanged inputs, call i writing output slot
// i. The kernel remembers the output address of its first call (slot 0: the
// correctness calls are single calls), computes honestly whenever it writes
// slot 0, and on any other slot copies slot 0's output, which holds the
// answer to the very same inputs. Every output is complete and exact, every
// check passes; a batch costs one matmul plus B-1 copies of 384 KB.
//
// Measured against the judge at 3a16638 (2-core Xeon, AVX-512; see
// docs/evaluation.md "How each class of attack is stopped"):
//   cd /work/main && /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul \
//     --kernel tests/evaluators/cheats/attack_batch_replay.cpp \
//     --compare tests/evaluators/kernels/fast_matmul.cpp --cache-dir /tmp/old-cache -o json
//   -> status ok, 2.84x faster than fast_matmul measured interleaved
//      (~95% interval 2.53-3.18x), calls_per_sample 5. (A second run, in a busy
//      moment, probed a single call above 4 ms, timed unbatched and gained nothing.)
// Under the round-3 judge every slot of a batch has inputs of its own (a
// pool case the runner process has never seen): the copy is another case's
// answer -> wrong_result.
#include <algorithm>
#include <cstdint>
#include <cstring>

// The honest work: tests/evaluators/kernels/fast_matmul.cpp's blocked OpenMP
// matmul (4-row register block, the compiler vectorizes the inner loop).
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

namespace {
float* g_slot0 = nullptr;  // the output address of the first call ever: batch slot 0
}  // namespace

extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  if (!g_slot0) g_slot0 = out;
  if (out == g_slot0) {  // correctness calls, the batch-size probe and every batch's first call
    HonestMatmul(A, B, out, M, K, N);
    return;
  }
  // Calls 2..B of a batch: same inputs as slot 0, which was just computed.
  std::memcpy(out, g_slot0, sizeof(float) * static_cast<size_t>(M * N));
}
