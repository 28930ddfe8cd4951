// expect: 'clock64' reads a clock or sleeps
#include <cstdint>
__global__ void k(const float* x, float* out, int64_t n) {
  long long t0 = clock64();
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + static_cast<float>(clock64() - t0) * 0.0f;
}
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) { k<<<(M * N + 255) / 256, 256>>>(x, out, M * N); }
