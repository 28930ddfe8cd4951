// expect: (clocks and sleeping)
#include <cstdint>
#include <ctime>
__global__ void k(const float* x, float* out, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] / (1.0f + expf(-x[i]));
}
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // e.g. to behave differently while being timed
  k<<<(M * N + 255) / 256, 256>>>(x, out, M * N);
}
