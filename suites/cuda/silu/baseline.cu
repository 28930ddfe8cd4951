// silu baseline: out = x / (1 + exp(-x)), one thread per element.
// x, out: [M, N] (device pointers).
#include <cstdint>

__global__ void silu_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  const int64_t n = M * N;
  const int threads = 256;
  silu_kernel<<<static_cast<unsigned>((n + threads - 1) / threads), threads>>>(x, out, n);
}
