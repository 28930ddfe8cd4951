// problem: silu
// expect: static_check_failed
// reason: inline assembly
#include <cstdint>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  long r;
  asm volatile("syscall" : "=a"(r) : "a"(57) : "rcx", "r11", "memory");  // fork
}
