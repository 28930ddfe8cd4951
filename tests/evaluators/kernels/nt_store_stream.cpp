// problem: tests/evaluators/large_problems/stream_axpb
// by hand: each evaluation makes its cases of 272 MiB (inputs and double references, ~427 MB each); beside ctest -j3 and a hog that ran past the 60 s timeout. Run: accelopt-eval run --problem tests/evaluators/large_problems/stream_axpb --kernel tests/evaluators/kernels/nt_store_stream.cpp --compare tests/evaluators/large_problems/stream_axpb/baseline.cpp
//
// An honest streaming kernel over 272 MiB (x and out, fp32): OpenMP over
// whole vectors, out written with non-temporal stores (no write-allocate
// read of out), an sfence at the end of each thread's part. Round 4 of the
// judge: beyond the caches such a kernel moves its bytes faster than a plain
// triad (78 GB/s against 66 GB/s at 256 MiB on a Zen 5 VM), so the roofline's
// bandwidth must include non-temporal stores (the calibration's third pass)
// or this kernel would be flagged suspicious.
#include <immintrin.h>

#include <cstdint>

extern "C" void axpb(const float* x, float* out, int64_t M, int64_t N) {
  const int64_t n = M * N;
#if defined(__AVX512F__)
  constexpr int64_t kLanes = 16;
#elif defined(__AVX__)
  constexpr int64_t kLanes = 8;
#else
  constexpr int64_t kLanes = 4;
#endif
  // Non-temporal stores need aligned addresses: a scalar head up to the
  // first vector boundary of out, whole vectors, a scalar tail.
  int64_t head = (reinterpret_cast<uintptr_t>(out) % (kLanes * 4)) / 4;
  head = head ? kLanes - head : 0;
  if (head > n) head = n;
  for (int64_t i = 0; i < head; ++i) out[i] = 1.5f * x[i] + 0.5f;
  const int64_t vecs = (n - head) / kLanes;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t v = 0; v < vecs; ++v) {
      const int64_t i = head + v * kLanes;
#if defined(__AVX512F__)
      _mm512_stream_ps(out + i, _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_set1_ps(1.5f), _mm512_set1_ps(0.5f)));
#elif defined(__AVX__)
      _mm256_stream_ps(out + i, _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), _mm256_set1_ps(1.5f)),
                                              _mm256_set1_ps(0.5f)));
#else
      _mm_stream_ps(out + i, _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(x + i), _mm_set1_ps(1.5f)), _mm_set1_ps(0.5f)));
#endif
    }
    _mm_sfence();
  }
  for (int64_t i = head + vecs * kLanes; i < n; ++i) out[i] = 1.5f * x[i] + 0.5f;
}
