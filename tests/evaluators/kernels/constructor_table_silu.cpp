// problem: tests/evaluators/problems/silu
// An honest kernel whose load-time constructor builds a small table (issue
// 40, item 7): the coefficients of 2^f = sum (f ln 2)^k / k! on f in [0, 1),
// computed once when the kernel is loaded, then used by every call. Load-time
// work is on the judge's clock beyond 50 ms (docs/evaluation.md, "Load-time
// work is on the clock"); this one costs microseconds and must be accepted.
#include <cmath>
#include <cstdint>

namespace {

constexpr int kTerms = 12;
float g_coeff[kTerms];

__attribute__((constructor)) void BuildTable() {
  double c = 1.0;
  for (int k = 0; k < kTerms; ++k) {
    g_coeff[k] = static_cast<float>(c);
    c *= 0.6931471805599453 / (k + 1);
  }
}

inline float Exp(float x) {
  if (x > 88.0f) return INFINITY;
  if (x < -103.0f) return 0.0f;
  const float t = x * 1.4426950408889634f;  // log2(e)
  const float n = std::floor(t);
  const float f = t - n;
  float p = g_coeff[kTerms - 1];
  for (int k = kTerms - 2; k >= 0; --k) p = p * f + g_coeff[k];
  return std::ldexp(p, static_cast<int>(n));
}

}  // namespace

extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + Exp(-x[i]));
}
