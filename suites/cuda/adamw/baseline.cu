// adamw baseline: one AdamW step, one thread per element, into separate outputs.
// theta, g, m, v, theta_out, m_out, v_out: [M, N] (device pointers).
#include <cstdint>

__global__ void adamw_kernel(const float* theta, const float* g, const float* m, const float* v,
                             float* theta_out, float* m_out, float* v_out, float lr, float beta1,
                             float beta2, float eps, float weight_decay, float bias_correction1,
                             float bias_correction2, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float gi = g[i];
  const float mi = beta1 * m[i] + (1.0f - beta1) * gi;
  const float vi = beta2 * v[i] + (1.0f - beta2) * gi * gi;
  const float m_hat = mi / bias_correction1;
  const float v_hat = vi / bias_correction2;
  const float decayed = theta[i] - lr * weight_decay * theta[i];
  theta_out[i] = decayed - lr * m_hat / (sqrtf(v_hat) + eps);
  m_out[i] = mi;
  v_out[i] = vi;
}

extern "C" void adamw(const float* theta, const float* g, const float* m, const float* v,
                      float* theta_out, float* m_out, float* v_out, float lr, float beta1,
                      float beta2, float eps, float weight_decay, float bias_correction1,
                      float bias_correction2, int64_t M, int64_t N) {
  const int64_t n = M * N;
  const int threads = 256;
  adamw_kernel<<<static_cast<unsigned>((n + threads - 1) / threads), threads>>>(
      theta, g, m, v, theta_out, m_out, v_out, lr, beta1, beta2, eps, weight_decay,
      bias_correction1, bias_correction2, n);
}
