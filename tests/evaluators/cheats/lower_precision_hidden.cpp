// problem: matmul
// expect: static_check_failed
// reason: reduced-precision arithmetic
// The type name is pasted together by the preprocessor, so the source scan
// does not see it; the instruction check on the object does.
#include <cstdint>
#define PASTE(a, b) a##b
typedef PASTE(_Float, 16) h16;
extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += (float)(h16)A[i * K + k] * (float)(h16)B[k * N + j];
      out[i * N + j] = acc;
    }
}
