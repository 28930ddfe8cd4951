// expect: reduced precision ('__nv_bfloat16')
#include <mma.h>
#include <cstdint>
__global__ void k(const float* x, float* out, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { __nv_bfloat16 b = x[i]; out[i] = b; }
}
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) { k<<<(M * N + 255) / 256, 256>>>(x, out, M * N); }
