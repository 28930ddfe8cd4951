// expect: #include <cuda_fp16.h> is not allowed (reduced precision (half))
#include <cuda_fp16.h>
#include <cstdint>
__global__ void k(const float* x, float* out, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __half2float(__float2half(x[i]));
}
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) { k<<<(M * N + 255) / 256, 256>>>(x, out, M * N); }
