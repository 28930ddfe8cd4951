// problem: silu
// expect: runtime_error
// reason: exceeded the memory limit (1024 MB of address space
// settings: {"memory_limit_mb": 1024}
#include <cstdint>
#include <cstring>
#include <vector>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  std::vector<float*> hoard;
  for (;;) {
    float* p = new float[1 << 24];
    std::memset(p, 1, sizeof(float) << 24);
    hoard.push_back(p);
  }
}
