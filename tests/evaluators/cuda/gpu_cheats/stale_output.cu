// gpu-check: silu; expect: wrong_result
// Computes once, then on later calls with the same output pointer writes
// nothing, counting on device memory still holding the previous result.
// The runner NaN-fills the outputs before every call.
#include <cuda_runtime.h>
#include <cstdint>
__global__ void silu_k(const float* x, float* out, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] / (1.0f + expf(-x[i]));
}
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  static float* last = nullptr;
  if (out == last) return;
  last = out;
  silu_k<<<static_cast<unsigned>((M * N + 255) / 256), 256>>>(x, out, M * N);
}
