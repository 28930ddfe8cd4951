// KNOWN WRONG (adamw): also writes the new m into the input m; rejected by the unchanged-inputs check.
// check.py --known-wrong expects this kernel to be rejected.
// adamw (known-wrong variant): one AdamW step, elementwise, into separate output buffers.
// theta, g, m, v, theta_out, m_out, v_out: [M, N].
#include <cmath>
#include <cstdint>

extern "C" void adamw(const float* theta, const float* g, const float* m, const float* v,
                      float* theta_out, float* m_out, float* v_out, float lr, float beta1,
                      float beta2, float eps, float weight_decay, float bias_correction1,
                      float bias_correction2, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M * N; ++i) {
    const float gi = g[i];
    const float mi = beta1 * m[i] + (1.0f - beta1) * gi;
    const float vi = beta2 * v[i] + (1.0f - beta2) * gi * gi;
    const float m_hat = mi / bias_correction1;
    const float v_hat = vi / bias_correction2;
    const float decayed = theta[i] - lr * weight_decay * theta[i];
    theta_out[i] = decayed - lr * m_hat / (std::sqrt(v_hat) + eps);
    m_out[i] = mi; const_cast<float*>(m)[i] = mi;
    v_out[i] = vi;
  }
}
