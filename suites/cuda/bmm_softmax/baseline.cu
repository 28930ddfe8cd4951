// bmm_softmax baseline: out[b] = softmax_rows(lhs[b] @ rhs[b]), row max subtracted.
// Two kernels: the product (one thread per output element, no tiling) into out,
// then the softmax in place (one thread per row).
// lhs: [B, M, K]; rhs: [B, K, N]; out: [B, M, N] (device pointers).
#include <cstdint>

__global__ void bmm_softmax_product(const float* lhs, const float* rhs, float* out, int64_t M,
                                    int64_t K, int64_t N) {
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

__global__ void bmm_softmax_rows(float* out, int64_t rows, int64_t N) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float* o = out + row * N;
  float row_max = -INFINITY;
  for (int64_t j = 0; j < N; ++j) row_max = fmaxf(row_max, o[j]);
  float sum = 0.0f;
  for (int64_t j = 0; j < N; ++j) {
    o[j] = expf(o[j] - row_max);
    sum += o[j];
  }
  for (int64_t j = 0; j < N; ++j) o[j] = o[j] / sum;
}

extern "C" void bmm_softmax(const float* lhs, const float* rhs, float* out, int64_t B,
                            int64_t M, int64_t K, int64_t N) {
  const dim3 threads(32, 8);
  const dim3 blocks(static_cast<unsigned>((N + 31) / 32), static_cast<unsigned>((M + 7) / 8),
                    static_cast<unsigned>(B));
  bmm_softmax_product<<<blocks, threads>>>(lhs, rhs, out, M, K, N);
  const int64_t rows = B * M;
  bmm_softmax_rows<<<static_cast<unsigned>((rows + 127) / 128), 128>>>(out, rows, N);
}
