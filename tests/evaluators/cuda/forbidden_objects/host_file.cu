// expect: (file access)
// Passes the source checks; the compiled object's undefined symbols give it away.
#include <cstdint>
#include <cstdio>
__global__ void k(const float* x, float* out, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] / (1.0f + expf(-x[i]));
}
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  if (FILE* f = std::fopen("/proc/self/maps", "r")) std::fclose(f);  // reading the judge's secrets, say
  k<<<(M * N + 255) / 256, 256>>>(x, out, M * N);
}
