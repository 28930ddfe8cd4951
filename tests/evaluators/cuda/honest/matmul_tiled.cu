// Honest fast matmul for suites/cuda/matmul: 64x64 output tiles in shared
// memory, 4x4 outputs per thread, fp32 FMA. Must pass the static checks and,
// on a GPU (scripts/gpu-check), be correct and faster than the baseline.
#include <cuda_runtime.h>

#include <cstdint>

constexpr int kTile = 64, kDepth = 16, kPer = 4;

__global__ void __launch_bounds__(256) matmul_tiled_kernel(const float* __restrict__ lhs,
                                                           const float* __restrict__ rhs,
                                                           float* __restrict__ out, int64_t M,
                                                           int64_t K, int64_t N) {
  __shared__ float a[kDepth][kTile + 1];
  __shared__ float b[kDepth][kTile];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile, col0 = static_cast<int64_t>(blockIdx.x) * kTile;
  float acc[kPer][kPer] = {};
  for (int64_t k0 = 0; k0 < K; k0 += kDepth) {
    for (int e = threadIdx.x; e < kTile * kDepth; e += blockDim.x) {
      const int r = e / kDepth, c = e % kDepth;  // lhs tile, stored transposed
      const int64_t gr = row0 + r, gc = k0 + c;
      a[c][r] = (gr < M && gc < K) ? lhs[gr * K + gc] : 0.0f;
      const int br = e / kTile, bc = e % kTile;
      const int64_t hr = k0 + br, hc = col0 + bc;
      b[br][bc] = (hr < K && hc < N) ? rhs[hr * N + hc] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < kDepth; ++k) {
      float av[kPer], bv[kPer];
      for (int i = 0; i < kPer; ++i) av[i] = a[k][ty * kPer + i];
      for (int j = 0; j < kPer; ++j) bv[j] = b[k][tx + 16 * j];
      for (int i = 0; i < kPer; ++i)
        for (int j = 0; j < kPer; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < kPer; ++i)
    for (int j = 0; j < kPer; ++j) {
      const int64_t r = row0 + ty * kPer + i, c = col0 + tx + 16 * j;
      if (r < M && c < N) out[r * N + c] = acc[i][j];
    }
}

extern "C" void matmul(const float* lhs, const float* rhs, float* out, int64_t M, int64_t K, int64_t N) {
  const dim3 blocks(static_cast<unsigned>((N + kTile - 1) / kTile), static_cast<unsigned>((M + kTile - 1) / kTile));
  matmul_tiled_kernel<<<blocks, 256>>>(lhs, rhs, out, M, K, N);
}
