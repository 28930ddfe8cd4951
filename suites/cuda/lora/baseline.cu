// lora baseline: out = x @ w + (x @ a) @ b (no scaling factor). xa = x @ a into
// a buffer in device memory, then one thread per output element; no tiling.
// x: [M, K]; w: [K, N]; a: [K, R]; b: [R, N]; out: [M, N] (device pointers).
#include <cuda_runtime.h>

#include <cstdint>

__global__ void lora_down(const float* x, const float* a, float* xa, int64_t M, int64_t K,
                          int64_t R) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= M || r >= R) return;
  float acc = 0.0f;
  for (int64_t k = 0; k < K; ++k) acc += x[i * K + k] * a[k * R + r];
  xa[i * R + r] = acc;
}

__global__ void lora_out(const float* x, const float* w, const float* xa, const float* b, float* out,
                         int64_t M, int64_t K, int64_t N, int64_t R) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;
  float acc = 0.0f;
  for (int64_t k = 0; k < K; ++k) acc += x[i * K + k] * w[k * N + j];
  float low_rank = 0.0f;
  for (int64_t r = 0; r < R; ++r) low_rank += xa[i * R + r] * b[r * N + j];
  out[i * N + j] = acc + low_rank;
}

extern "C" void lora(const float* x, const float* w, const float* a, const float* b, float* out,
                     int64_t M, int64_t K, int64_t N, int64_t R) {
  float* xa = nullptr;
  if (cudaMalloc(&xa, sizeof(float) * M * R) != cudaSuccess) return;
  const dim3 threads(32, 8);
  lora_down<<<dim3(static_cast<unsigned>((R + 31) / 32), static_cast<unsigned>((M + 7) / 8)), threads>>>(
      x, a, xa, M, K, R);
  lora_out<<<dim3(static_cast<unsigned>((N + 31) / 32), static_cast<unsigned>((M + 7) / 8)), threads>>>(
      x, w, xa, b, out, M, K, N, R);
  cudaFree(xa);  // waits for the kernels above
}
