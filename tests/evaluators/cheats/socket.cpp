// problem: silu
// expect: static_check_failed
// reason: network access
#include <cmath>
#include <cstdint>
#include <sys/socket.h>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  (void)s;
  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
