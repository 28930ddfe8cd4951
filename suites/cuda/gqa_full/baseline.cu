// gqa_full baseline: non-causal grouped-query attention in three kernels over
// a scores buffer in device memory: scores (one thread per score), softmax
// (one thread per row), scores @ v (one thread per output element). No tiling.
// q: [B, N, QH, D]; k, v: [B, N, KH, D]; out: [B, QH, N, D] (device pointers).
// Query head h reads key/value head h / (QH / KH).
#include <cuda_runtime.h>

#include <cstdint>

__global__ void gqa_scores(const float* q, const float* k, float* p, int64_t N, int64_t QH,
                           int64_t KH, int64_t D, float scale) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  const int64_t bh = blockIdx.z;  // b * QH + h
  if (i >= N || j >= N) return;
  const int64_t b = bh / QH, h = bh % QH, kh = h / (QH / KH);
  const float* qi = q + ((b * N + i) * QH + h) * D;
  const float* kj = k + ((b * N + j) * KH + kh) * D;
  float s = 0.0f;
  for (int64_t d = 0; d < D; ++d) s += qi[d] * kj[d];
  p[(bh * N + i) * N + j] = s * scale;
}

__global__ void gqa_softmax(float* p, int64_t rows, int64_t N) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float* r = p + row * N;
  float row_max = -INFINITY;
  for (int64_t j = 0; j < N; ++j) row_max = fmaxf(row_max, r[j]);
  float sum = 0.0f;
  for (int64_t j = 0; j < N; ++j) {
    r[j] = expf(r[j] - row_max);
    sum += r[j];
  }
  for (int64_t j = 0; j < N; ++j) r[j] = r[j] / sum;
}

__global__ void gqa_values(const float* p, const float* v, float* out, int64_t N, int64_t QH,
                           int64_t KH, int64_t D) {
  const int64_t d = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  const int64_t bh = blockIdx.z;
  if (i >= N || d >= D) return;
  const int64_t b = bh / QH, h = bh % QH, kh = h / (QH / KH);
  const float* r = p + (bh * N + i) * N;
  float acc = 0.0f;
  for (int64_t j = 0; j < N; ++j) acc += r[j] * v[((b * N + j) * KH + kh) * D + d];
  out[(bh * N + i) * D + d] = acc;
}

extern "C" void gqa_full(const float* q, const float* k, const float* v, float* out, int64_t B,
                         int64_t N, int64_t QH, int64_t KH, int64_t D) {
  float* p = nullptr;
  if (cudaMalloc(&p, sizeof(float) * B * QH * N * N) != cudaSuccess) return;
  const float scale = 1.0f / sqrtf(static_cast<float>(D));
  const dim3 threads(32, 8);
  gqa_scores<<<dim3(static_cast<unsigned>((N + 31) / 32), static_cast<unsigned>((N + 7) / 8),
                    static_cast<unsigned>(B * QH)),
               threads>>>(q, k, p, N, QH, KH, D, scale);
  const int64_t rows = B * QH * N;
  gqa_softmax<<<static_cast<unsigned>((rows + 127) / 128), 128>>>(p, rows, N);
  gqa_values<<<dim3(static_cast<unsigned>((D + 31) / 32), static_cast<unsigned>((N + 7) / 8),
                    static_cast<unsigned>(B * QH)),
               threads>>>(p, v, out, N, QH, KH, D);
  cudaFree(p);  // waits for the kernels above
}
