// expect: #include <cublas_v2.h> is not allowed (cuBLAS does the work
#include <cublas_v2.h>
#include <cstdint>
extern "C" void matmul(const float* lhs, const float* rhs, float* out, int64_t M, int64_t K, int64_t N) {
  static cublasHandle_t h = nullptr;
  if (!h) cublasCreate(&h);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, rhs, (int)N, lhs, (int)K, &zero, out, (int)N);
}
