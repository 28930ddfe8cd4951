// KNOWN WRONG (swiglu): gate sigmoid as exp(g)/(1+exp(g)) gives inf/inf; rejected by case large_gates.
// check.py --known-wrong expects this kernel to be rejected.
// swiglu (known-wrong variant): h = silu(x @ w_gate) * (x @ w_up); out = h @ w_down.
// x: [M, K]; w_up, w_gate: [K, N]; w_down: [N, K]; out: [M, K].
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void swiglu(const float* x, const float* w_up, const float* w_down,
                       const float* w_gate, float* out, int64_t M, int64_t K, int64_t N) {
  std::vector<float> h(N);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t n = 0; n < N; ++n) {
      float up = 0.0f;
      float gate = 0.0f;
      for (int64_t k = 0; k < K; ++k) {
        up += x[i * K + k] * w_up[k * N + n];
        gate += x[i * K + k] * w_gate[k * N + n];
      }
      h[n] = gate * std::exp(gate) / (1.0f + std::exp(gate)) * up;
    }
    for (int64_t k = 0; k < K; ++k) {
      float acc = 0.0f;
      for (int64_t n = 0; n < N; ++n) acc += h[n] * w_down[n * K + k];
      out[i * K + k] = acc;
    }
  }
}
