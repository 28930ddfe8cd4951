// lora reference (double accumulation): x @ w + (x @ a) @ b.
#include <cstdint>
#include <vector>

extern "C" void lora_reference(const double* x, const double* w, const double* a,
                               const double* b, double* out, int64_t M, int64_t K, int64_t N,
                               int64_t R) {
  std::vector<double> xa(R);
  for (int64_t i = 0; i < M; ++i) {
    double* o = out + i * N;
    for (int64_t r = 0; r < R; ++r) xa[r] = 0.0;
    for (int64_t j = 0; j < N; ++j) o[j] = 0.0;
    for (int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      for (int64_t r = 0; r < R; ++r) xa[r] += xik * a[k * R + r];
      for (int64_t j = 0; j < N; ++j) o[j] += xik * w[k * N + j];
    }
    for (int64_t r = 0; r < R; ++r) {
      for (int64_t j = 0; j < N; ++j) o[j] += xa[r] * b[r * N + j];
    }
  }
}
