// KNOWN WRONG (mamba): exp(delta*a) replaced by 1 + delta*a; rejected by case decaying_state (and the default seeds).
// check.py --known-wrong expects this kernel to be rejected.
// mamba (known-wrong variant): Mamba-v1 selective scan, one channel at a time.
//   h[c][s] = exp(delta[c][t] * a[c][s]) * h[c][s] + delta[c][t] * b[s][t] * u[c][t]
//   out[c][t] = sum_s c[s][t] * h[c][s]
// delta, u, out: [C, M]; a: [C, S]; b, c: [S, M]. h starts at zero.
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void mamba(const float* delta, const float* u, const float* a, const float* b,
                      const float* c, float* out, int64_t C, int64_t S, int64_t M) {
  std::vector<float> h(S);
  for (int64_t ch = 0; ch < C; ++ch) {
    for (int64_t s = 0; s < S; ++s) h[s] = 0.0f;
    for (int64_t t = 0; t < M; ++t) {
      const float dt = delta[ch * M + t];
      const float ut = u[ch * M + t];
      float y = 0.0f;
      for (int64_t s = 0; s < S; ++s) {
        h[s] = (1.0f + dt * a[ch * S + s]) * h[s] + dt * b[s * M + t] * ut;
        y += c[s * M + t] * h[s];
      }
      out[ch * M + t] = y;
    }
  }
}
