// expect: (a library that does the work
// No cuBLAS header: the function is declared by hand. The object still names it.
#include <cstdint>
extern "C" int cublasCreate_v2(void** handle);
extern "C" int cublasSgemm_v2(void* h, int ta, int tb, int m, int n, int k, const float* alpha, const float* a, int lda,
                              const float* b, int ldb, const float* beta, float* c, int ldc);
extern "C" void matmul(const float* lhs, const float* rhs, float* out, int64_t M, int64_t K, int64_t N) {
  static void* h = nullptr;
  if (!h) cublasCreate_v2(&h);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm_v2(h, 0, 0, (int)N, (int)M, (int)K, &one, rhs, (int)N, lhs, (int)K, &zero, out, (int)N);
}
