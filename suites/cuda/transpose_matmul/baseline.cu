// transpose_matmul baseline: out = lhs^T @ rhs, one thread per output element, no tiling.
// lhs: [K, M]; rhs: [K, N]; out: [M, N] (device pointers).
#include <cstdint>

__global__ void transpose_matmul_kernel(const float* lhs, const float* rhs, float* out, int64_t M,
                                        int64_t K, int64_t N) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;
  float acc = 0.0f;
  for (int64_t k = 0; k < K; ++k) acc += lhs[k * M + i] * rhs[k * N + j];
  out[i * N + j] = acc;
}

extern "C" void transpose_matmul(const float* lhs, const float* rhs, float* out, int64_t M,
                                 int64_t K, int64_t N) {
  const dim3 threads(32, 8);
  const dim3 blocks(static_cast<unsigned>((N + 31) / 32), static_cast<unsigned>((M + 7) / 8));
  transpose_matmul_kernel<<<blocks, threads>>>(lhs, rhs, out, M, K, N);
}
