// expect: inline assembly (inline PTX) is not allowed
#include <cstdint>
__global__ void k(const unsigned* a, const unsigned* b, float* c) {
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  c[threadIdx.x] = d0 + d1 + d2 + d3;
}
extern "C" void matmul(const float* lhs, const float* rhs, float* out, int64_t M, int64_t K, int64_t N) {}
