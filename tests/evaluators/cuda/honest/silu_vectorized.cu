// Honest fast silu for suites/cuda/silu: float4 loads and stores, a
// grid-stride loop, and a scalar tail. Must pass the static checks and, on a
// GPU (scripts/gpu-check), be correct and no slower than the baseline.
#include <cuda_runtime.h>

#include <cstdint>

__device__ __forceinline__ float silu1(float x) { return x / (1.0f + expf(-x)); }

__global__ void silu_vec_kernel(const float4* __restrict__ x, float4* __restrict__ out, int64_t n4,
                                const float* __restrict__ xs, float* __restrict__ outs, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 v = x[i];
    v.x = silu1(v.x);
    v.y = silu1(v.y);
    v.z = silu1(v.z);
    v.w = silu1(v.w);
    out[i] = v;
  }
  for (int64_t i = n4 * 4 + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    outs[i] = silu1(xs[i]);
}

extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  const int64_t n = M * N, n4 = n / 4;
  int sms = 0, dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const unsigned blocks = static_cast<unsigned>(sms > 0 ? sms * 8 : 1024);
  silu_vec_kernel<<<blocks, 256>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(out), n4, x,
                                   out, n);
}
