// expect: reduced precision ('__half')
// <mma.h> pulls in cuda_fp16.h: the type itself is refused.
#include <mma.h>
#include <cstdint>
__global__ void k(const float* x, float* out, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { __half h = x[i]; out[i] = h; }
}
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) { k<<<(M * N + 255) / 256, 256>>>(x, out, M * N); }
