// adamw reference (double): decoupled weight decay, bias-corrected moments.
#include <cmath>
#include <cstdint>

extern "C" void adamw_reference(const double* theta, const double* g, const double* m,
                                const double* v, double* theta_out, double* m_out,
                                double* v_out, double lr, double beta1, double beta2,
                                double eps, double weight_decay, double bias_correction1,
                                double bias_correction2, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M * N; ++i) {
    const double mi = beta1 * m[i] + (1.0 - beta1) * g[i];
    const double vi = beta2 * v[i] + (1.0 - beta2) * g[i] * g[i];
    const double m_hat = mi / bias_correction1;
    const double v_hat = vi / bias_correction2;
    theta_out[i] = theta[i] - lr * weight_decay * theta[i] - lr * m_hat / (std::sqrt(v_hat) + eps);
    m_out[i] = mi;
    v_out[i] = vi;
  }
}
