// problem: silu
// expect: static_check_failed
// reason: is not allowed (file access)
// Reads /proc to find out about the harness.
#include <cmath>
#include <cstdint>
#include <cstdio>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f) std::fclose(f);
  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
