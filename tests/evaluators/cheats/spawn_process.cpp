// problem: silu
// expect: static_check_failed
// reason: 'system' is not allowed (process control)
#include <cmath>
#include <cstdint>
#include <cstdlib>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  std::system("curl http://example.com/answers");
  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
