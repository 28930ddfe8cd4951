// swiglu baseline: h = silu(x @ w_gate) * (x @ w_up) into a buffer in device
// memory (one thread per element of h), then out = h @ w_down (one thread per
// output element); no tiling.
// x: [M, K]; w_up, w_gate: [K, N]; w_down: [N, K]; out: [M, K] (device pointers).
#include <cuda_runtime.h>

#include <cstdint>

__global__ void swiglu_hidden(const float* x, const float* w_up, const float* w_gate, float* h,
                              int64_t M, int64_t K, int64_t N) {
  const int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= M || n >= N) return;
  float up = 0.0f, gate = 0.0f;
  for (int64_t k = 0; k < K; ++k) {
    up += x[i * K + k] * w_up[k * N + n];
    gate += x[i * K + k] * w_gate[k * N + n];
  }
  h[i * N + n] = gate / (1.0f + expf(-gate)) * up;
}

__global__ void swiglu_down(const float* h, const float* w_down, float* out, int64_t M, int64_t K,
                            int64_t N) {
  const int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= M || k >= K) return;
  float acc = 0.0f;
  for (int64_t n = 0; n < N; ++n) acc += h[i * N + n] * w_down[n * K + k];
  out[i * K + k] = acc;
}

extern "C" void swiglu(const float* x, const float* w_up, const float* w_down,
                       const float* w_gate, float* out, int64_t M, int64_t K, int64_t N) {
  float* h = nullptr;
  if (cudaMalloc(&h, sizeof(float) * M * N) != cudaSuccess) return;
  const dim3 threads(32, 8);
  swiglu_hidden<<<dim3(static_cast<unsigned>((N + 31) / 32), static_cast<unsigned>((M + 7) / 8)),
                  threads>>>(x, w_up, w_gate, h, M, K, N);
  swiglu_down<<<dim3(static_cast<unsigned>((K + 31) / 32), static_cast<unsigned>((M + 7) / 8)),
                threads>>>(h, w_down, out, M, K, N);
  cudaFree(h);  // waits for the kernels above
}
