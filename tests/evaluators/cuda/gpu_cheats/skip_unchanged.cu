// gpu-check: silu; expect: not_ok (wrong_result or suspicious)
// Keeps the last result in a device buffer of its own, and when 64 sampled
// input elements equal the last call's, copies it instead of computing.
// Caught by the in-place perturbation case (changed elements outside the
// sample) or by the judge's history check (fast only on inputs seen before).
#include <cuda_runtime.h>
#include <cstdint>
__global__ void silu_k(const float* x, float* out, float* keep, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = keep[i] = x[i] / (1.0f + expf(-x[i]));
}
__global__ void sample_k(const float* x, float* sample, int* same, int64_t n) {
  int t = threadIdx.x;  // 64 threads
  float v = x[(n / 64) * t];
  if (sample[t] != v) atomicExch(same, 0);
  sample[t] = v;
}
__global__ void flag_k(int* same) { *same = 1; }
__global__ void copy_if_same(const int* same, const float* keep, const float* x, float* out, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = *same ? keep[i] : x[i] / (1.0f + expf(-x[i]));
}
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  const int64_t n = M * N;
  static float *keep = nullptr, *sample = nullptr;
  static int* same = nullptr;
  if (!keep) {
    cudaMalloc(&keep, sizeof(float) * n);
    cudaMalloc(&sample, sizeof(float) * 64);
    cudaMalloc(&same, sizeof(int));
    cudaMemset(sample, 0xff, sizeof(float) * 64);
    silu_k<<<static_cast<unsigned>((n + 255) / 256), 256>>>(x, out, keep, n);
    return;
  }
  flag_k<<<1, 1>>>(same);
  sample_k<<<1, 64>>>(x, sample, same, n);
  // Still one full pass (the copy), but no expf: the "fast path" on repeats.
  copy_if_same<<<static_cast<unsigned>((n + 255) / 256), 256>>>(same, keep, x, out, n);
}
