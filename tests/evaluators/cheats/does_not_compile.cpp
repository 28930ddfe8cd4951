// problem: silu
// expect: compile_error
// reason: error
#include <cstdint>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  out[0] = undefined_name;
}
