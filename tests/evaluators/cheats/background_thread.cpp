// problem: silu
// expect: wrong_result
// reason: background thread | not written before the call returned
// Returns at once and lets a detached thread fill the output later.
#include <cmath>
#include <cstdint>
#include <thread>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  std::thread([=] {
    volatile long spin = 0;
    for (long i = 0; i < 2000000; ++i) spin = spin + 1;  // start late
    for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
  }).detach();
}
