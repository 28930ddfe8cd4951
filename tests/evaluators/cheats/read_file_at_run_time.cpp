// problem: silu
// expect: wrong_result
// reason: NaN/Inf
// settings: {"static_checks": false}
// With the static checks off, the sandbox still refuses to open files: this
// kernel only works when it can read a file, so it fails.
#include <cmath>
#include <cstdint>
#include <cstdio>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  FILE* f = std::fopen("/etc/hostname", "r");
  if (!f) return;
  std::fclose(f);
  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
