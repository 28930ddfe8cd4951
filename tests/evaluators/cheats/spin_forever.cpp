// problem: silu
// expect: timeout
// reason: timed out
// settings: {"timeout_s": 3}
#include <cstdint>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  volatile int64_t i = 0;
  for (;;) i = i + 1;
}
