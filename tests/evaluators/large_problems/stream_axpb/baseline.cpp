#include <cstdint>
extern "C" void axpb(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M * N; ++i) out[i] = 1.5f * x[i] + 0.5f;
}
