// expect: #include <cublasLt.h> is not allowed (cuBLAS does the work
#include <cublasLt.h>
#include <cstdint>
extern "C" void matmul(const float* lhs, const float* rhs, float* out, int64_t M, int64_t K, int64_t N) {}
