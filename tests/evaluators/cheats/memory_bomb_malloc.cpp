// problem: silu
// expect: runtime_error
// reason: exceeded the memory limit (1024 MB of address space
// settings: {"memory_limit_mb": 1024}
// A memory bomb that never checks malloc: at the address-space limit malloc
// returns NULL and the memset through it is a SIGSEGV. Before the judge
// looked at the runner's peak memory this was reported as "the kernel
// crashed: killed by signal 11 (Segmentation fault)", which names the symptom
// and hides the cause.
#include <cstdint>
#include <cstdlib>
#include <cstring>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  for (;;) {
    char* p = static_cast<char*>(std::malloc(1 << 28));
    std::memset(p, 1, 1 << 28);
  }
}
