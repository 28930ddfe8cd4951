// mamba reference (double): the selective-scan recurrence of the NKIBench mamba
// kernel (Mamba-v1, no D skip term, no z gate, no softplus on delta).
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void mamba_reference(const double* delta, const double* u, const double* a,
                                const double* b, const double* c, double* out, int64_t C,
                                int64_t S, int64_t M) {
  std::vector<double> h(S);
  for (int64_t ch = 0; ch < C; ++ch) {
    for (int64_t s = 0; s < S; ++s) h[s] = 0.0;
    for (int64_t t = 0; t < M; ++t) {
      const double dt = delta[ch * M + t];
      const double ut = u[ch * M + t];
      double y = 0.0;
      for (int64_t s = 0; s < S; ++s) {
        h[s] = std::exp(dt * a[ch * S + s]) * h[s] + dt * b[s * M + t] * ut;
        y += c[s * M + t] * h[s];
      }
      out[ch * M + t] = y;
    }
  }
}
