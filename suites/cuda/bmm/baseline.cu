// bmm baseline: out[b] = lhs[b] @ rhs[b], one thread per output element, no tiling.
// lhs: [B, M, K]; rhs: [B, K, N]; out: [B, M, N] (device pointers).
#include <cstdint>

__global__ void bmm_kernel(const float* lhs, const float* rhs, float* out, int64_t M, int64_t K,
                           int64_t N) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  const int64_t b = blockIdx.z;
  if (i >= M || j >= N) return;
  const float* l = lhs + b * M * K;
  const float* r = rhs + b * K * N;
  float acc = 0.0f;
  for (int64_t k = 0; k < K; ++k) acc += l[i * K + k] * r[k * N + j];
  out[(b * M + i) * N + j] = acc;
}

extern "C" void bmm(const float* lhs, const float* rhs, float* out, int64_t B, int64_t M,
                    int64_t K, int64_t N) {
  const dim3 threads(32, 8);
  const dim3 blocks(static_cast<unsigned>((N + 31) / 32), static_cast<unsigned>((M + 7) / 8),
                    static_cast<unsigned>(B));
  bmm_kernel<<<blocks, threads>>>(lhs, rhs, out, M, K, N);
}
