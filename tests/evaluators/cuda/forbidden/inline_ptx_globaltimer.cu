// expect: inline assembly (inline PTX) is not allowed
#include <cstdint>
__global__ void k(unsigned long long* t) {
  unsigned long long v;
  __asm__ volatile("mov.u64 %0, %%globaltimer;" : "=l"(v));
  *t = v;
}
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {}
