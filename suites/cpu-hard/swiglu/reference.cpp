// swiglu reference (double accumulation).
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void swiglu_reference(const double* x, const double* w_up, const double* w_down,
                                 const double* w_gate, double* out, int64_t M, int64_t K,
                                 int64_t N) {
  std::vector<double> up(N), gate(N);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t n = 0; n < N; ++n) up[n] = gate[n] = 0.0;
    for (int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      for (int64_t n = 0; n < N; ++n) {
        up[n] += xik * w_up[k * N + n];
        gate[n] += xik * w_gate[k * N + n];
      }
    }
    double* o = out + i * K;
    for (int64_t k = 0; k < K; ++k) o[k] = 0.0;
    for (int64_t n = 0; n < N; ++n) {
      const double h = gate[n] / (1.0 + std::exp(-gate[n])) * up[n];
      for (int64_t k = 0; k < K; ++k) o[k] += h * w_down[n * K + k];
    }
  }
}
