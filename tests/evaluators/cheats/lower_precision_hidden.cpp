// problem: matmul
// expect: static_check_failed
// reason: after preprocessing): reduced-precision type '_Float16'
// The type name is pasted together by the preprocessor, so the scan of the
// text as written does not see it; since round 4 the scan of what the
// compiler saw (CheckPreprocessed) does, and the instruction check on the
// object would too.
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
