// problem: matmul
// expect: static_check_failed
// reason: reduced-precision type '_Float16'
#include <cstdint>
extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      _Float16 acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += (_Float16)A[i * K + k] * (_Float16)B[k * N + j];
      out[i * N + j] = acc;
    }
}
