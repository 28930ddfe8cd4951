// problem: silu
// expect: runtime_error
// reason: signal 11
#include <cstdint>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  volatile float* p = reinterpret_cast<volatile float*>(uintptr_t{16});
  for (int64_t i = 0; i < M * N; ++i) p[i] = x[i];
}
