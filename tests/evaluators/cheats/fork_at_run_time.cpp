// problem: silu
// expect: runtime_error
// reason: forbidden system call
// settings: {"static_checks": false}
// With the static checks off, seccomp stops the fork.
#include <cmath>
#include <cstdint>
#include <unistd.h>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  if (fork() == 0) { for (;;) {} }
  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
