// silu reference (double): out = x / (1 + exp(-x)).
#include <cmath>
#include <cstdint>

extern "C" void silu_reference(const double* x, double* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0 + std::exp(-x[i]));
}
