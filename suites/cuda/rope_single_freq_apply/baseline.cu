// rope_single_freq_apply baseline: rotate the two halves of x by (cos, sin),
// one thread per (d, t). x, out: [2, Dh, T]; freqs_cos, freqs_sin: [Dh, T] (device pointers).
#include <cstdint>

__global__ void rope_kernel(const float* x, const float* freqs_cos, const float* freqs_sin,
                            float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x0 = x[i], x1 = x[n + i];
  const float c = freqs_cos[i], s = freqs_sin[i];
  out[i] = x0 * c - x1 * s;
  out[n + i] = x0 * s + x1 * c;
}

extern "C" void rope_single_freq_apply(const float* x, const float* freqs_cos,
                                       const float* freqs_sin, float* out, int64_t Dh,
                                       int64_t T) {
  const int64_t n = Dh * T;
  const int threads = 256;
  rope_kernel<<<static_cast<unsigned>((n + threads - 1) / threads), threads>>>(x, freqs_cos, freqs_sin,
                                                                              out, n);
}
