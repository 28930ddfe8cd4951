// gpu-check: silu; expect: wrong_result
// Launches the work on a non-blocking stream of its own and returns without
// synchronizing it: the default stream's stop event does not wait for it, so
// its time would not count. The outputs were NaN-filled before the call and
// are copied out right after the stop event: unfinished work shows as NaN.
// Passes the static checks (streams are allowed); only the GPU run catches it.
#include <cuda_runtime.h>
#include <cstdint>
__global__ void slow_silu(const float* x, float* out, int64_t n, int reps) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], r = 0.0f;
  for (int k = 0; k < reps; ++k) r = v / (1.0f + expf(-v)) + r * 0.0f;  // long enough to be caught running
  out[i] = r;
}
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  static cudaStream_t s = nullptr;
  if (!s) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  slow_silu<<<static_cast<unsigned>((M * N + 255) / 256), 256, 0, s>>>(x, out, M * N, 64);
}
