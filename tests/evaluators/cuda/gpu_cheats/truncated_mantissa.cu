// gpu-check: matmul; expect: wrong_result
// TF32 by hand: the inputs' mantissas cut to 10 bits with a bit mask before
// the fp32 FMA. No half type, no tensor core, no intrinsic: the static checks
// cannot see it; the judge's tolerance (relative L2 2e-5 against the double
// reference) must.
#include <cstdint>
__device__ __forceinline__ float tf32ish(float v) { return __uint_as_float(__float_as_uint(v) & 0xffffe000u); }
__global__ void mm(const float* lhs, const float* rhs, float* out, int64_t M, int64_t K, int64_t N) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;
  float acc = 0.0f;
  for (int64_t k = 0; k < K; ++k) acc += tf32ish(lhs[i * K + k]) * tf32ish(rhs[k * N + j]);
  out[i * N + j] = acc;
}
extern "C" void matmul(const float* lhs, const float* rhs, float* out, int64_t M, int64_t K, int64_t N) {
  mm<<<dim3(static_cast<unsigned>((N + 31) / 32), static_cast<unsigned>((M + 7) / 8)), dim3(32, 8)>>>(lhs, rhs, out, M, K, N);
}
