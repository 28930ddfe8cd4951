#include <cmath>
#include <cstdint>
extern "C" void softmax_reference(const double* x, double* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    const double* r = x + i * N;
    double m = r[0];
    for (int64_t j = 1; j < N; ++j) m = r[j] > m ? r[j] : m;
    double s = 0;
    for (int64_t j = 0; j < N; ++j) s += std::exp(r[j] - m);
    for (int64_t j = 0; j < N; ++j) out[i * N + j] = std::exp(r[j] - m) / s;
  }
}
