// expect: tensor-core fragments must be double
// A float accumulator only exists for half/bf16/tf32 inputs.
#include <mma.h>
#include <cstdint>
using namespace nvcuda;
__global__ void k(float* c) {
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
extern "C" void matmul(const float* lhs, const float* rhs, float* out, int64_t M, int64_t K, int64_t N) { k<<<1, 32>>>(out); }
