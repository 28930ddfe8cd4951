// problem: suites/cpu/adamw
// An honestly faster adamw (suites/cpu/adamw): the same arithmetic as the
// baseline, hoisted constants, OpenMP over all cores and SIMD. Memory bound:
// seven streams of M*N floats.
#include <cmath>
#include <cstdint>

extern "C" void adamw(const float* theta, const float* g, const float* m, const float* v,
                      float* theta_out, float* m_out, float* v_out, float lr, float beta1,
                      float beta2, float eps, float weight_decay, float bias_correction1,
                      float bias_correction2, int64_t M, int64_t N) {
  const int64_t n = M * N;
  const float one_b1 = 1.0f - beta1, one_b2 = 1.0f - beta2, decay = lr * weight_decay;
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i];
    const float mi = beta1 * m[i] + one_b1 * gi;
    const float vi = beta2 * v[i] + one_b2 * gi * gi;
    const float m_hat = mi / bias_correction1;
    const float v_hat = vi / bias_correction2;
    const float decayed = theta[i] - decay * theta[i];
    theta_out[i] = decayed - lr * m_hat / (std::sqrt(v_hat) + eps);
    m_out[i] = mi;
    v_out[i] = vi;
  }
}
