// expect: (host<->device copies
// Copies the input to the host, computes there, copies back: not a kernel.
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>
#include <vector>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  std::vector<float> h(static_cast<size_t>(M * N));
  cudaMemcpy(h.data(), x, sizeof(float) * h.size(), cudaMemcpyDeviceToHost);
  for (float& v : h) v = v / (1.0f + std::exp(-v));
  cudaMemcpy(out, h.data(), sizeof(float) * h.size(), cudaMemcpyHostToDevice);
}
