// expect: #include <cuda.h> is not allowed (the driver API
#include <cuda.h>
#include <cstdint>
extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) { cuCtxSynchronize(); }
