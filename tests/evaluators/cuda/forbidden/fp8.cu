// expect: #include <cuda_fp8.h> is not allowed (reduced precision (fp8))
#include <cuda_fp8.h>
#include <cstdint>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {}
