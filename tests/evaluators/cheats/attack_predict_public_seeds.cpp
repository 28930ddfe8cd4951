// problem: matmul
// expect: wrong_result
// reason: exceeds tolerance | NaN
//
// Attack: predict the harness's inputs from the PUBLIC seeds.
// The kernel re-implements the harness generator (SplitMix/StreamSeed, the
// counter-based Mix/U01 Box-Muller FillDist, the 3-element in-place
// perturbation of seed[0] with its own SplitMix stream, the adversarial case
// seed seeds[0]+7919 with A ~ uniform(-1e4, 1e4)) and on its first call
// generates all 7 cases (seeds 0, 0-perturbed, 21, 42, 63, 84, 7919) and
// computes their outputs. Each later call recognises its case by comparing a
// few probe elements of A and B: 16 spread positions plus the 6 positions the
// perturbation changes (so the perturbed case is told apart from seed 0), then
// memcpy's the precomputed output. Recognition costs ~40 loads whatever the
// problem size; the call never multiplies anything. If no case matches (e.g.
// secret seeds) it writes zeros: it never computes honestly after the first
// call. matmul is the strongest target: the work skipped is 50 MFLOP while
// the cheat's cost is one 384 KB memcpy. A fixed busy loop pads the median to
// ~65% of peak.
//
// Measured against today's harness (numbers in NOTES.md):
//   /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul \
//     --kernel /work/attacks-B/attack_predict_public_seeds.cpp --cache-dir /tmp/old-eval-cache-B -o json
//   -> status ok, median ~150 us, percent_of_peak ~67
//   honest fast_matmul.cpp, same command: ok, median ~480 us, ~21% of peak
// Under the new judge (secret seeds) nothing matches -> zeros -> "exceeds tolerance".
#pragma GCC optimize("fp-contract=off")  // the harness is built without FMA: match its rounding
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

void honest(const float* A, const float* B, float* C, int64_t M, int64_t K, int64_t N) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < M; ++i) {
    float* c = C + i * N;
    for (int64_t j = 0; j < N; ++j) c[j] = 0.0f;
    for (int64_t k = 0; k < K; ++k) {
      const float a = A[i * K + k];
      const float* b = B + k * N;
#pragma omp simd
      for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

// ---- the harness's generator, re-implemented ----
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
struct SplitMix {
  uint64_t s;
  uint64_t Next() { return Mix(s += 0x9e3779b97f4a7c15ULL); }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  double Normal() {
    double u1 = Uniform(), u2 = Uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
};
uint64_t StreamSeed(uint64_t seed, int param, uint64_t salt) {
  SplitMix m{seed * 0x100000001b3ULL + static_cast<uint64_t>(param) * 7919 + salt};
  return m.Next();
}
double U01(uint64_t stream, uint64_t k) {
  return (static_cast<double>(Mix(stream + 0x9e3779b97f4a7c15ULL * (k + 1)) >> 11) + 1.0) * 0x1.0p-53;
}
struct Dist { bool uniform; double a, b; };
// FillDist + the perturbation, for one input (param index i).
void Draw(float* x, int64_t n, Dist d, uint64_t seed, int i, bool perturb, int64_t* ppos) {
  uint64_t st = StreamSeed(seed, i, 0);
  if (d.uniform) {
    for (int64_t k = 0; k < n; ++k) x[k] = static_cast<float>(d.a + (d.b - d.a) * (U01(st, k) - 0x1.0p-53));
  } else {
    for (int64_t k = 0; k < n; k += 2) {
      double r = std::sqrt(-2 * std::log(U01(st, k))), t = 2 * M_PI * U01(st, k + 1);
      double v0 = d.a + d.b * r * std::cos(t), v1 = d.a + d.b * r * std::sin(t);
      x[k] = static_cast<float>(v0);
      if (k + 1 < n) x[k + 1] = static_cast<float>(v1);
    }
  }
  SplitMix prng{StreamSeed(seed, i, 0x9e7u)};
  for (int k = 0; k < 3; ++k) {  // positions are computed for every case (probes), applied only if perturb
    int64_t pos = static_cast<int64_t>(prng.Uniform() * static_cast<double>(n));
    float nv = static_cast<float>(d.uniform ? d.a + (d.b - d.a) * prng.Uniform() : d.a + d.b * prng.Normal());
    if (nv == x[pos]) nv = x[pos] + 1.0f;
    if (perturb) x[pos] = nv;
    if (ppos) ppos[k] = pos;
  }
}

struct Known { std::vector<float> probe, out; };
std::vector<Known> g_known;
std::vector<int64_t> g_pa, g_pb;  // probe positions in A and B
int64_t g_dims[3] = {-1, -1, -1};
volatile unsigned g_sink;

void pad(long iters) {
  unsigned x = g_sink;
  for (long i = 0; i < iters; ++i) { x = x * 1664525u + 1013904223u; g_sink = x; }
}

void Precompute(int64_t M, int64_t K, int64_t N) {
  const Dist normal{false, 0, 1}, adv{true, -1e4, 1e4};
  struct C { uint64_t seed; bool perturb; Dist a; } cases[] = {
      {0, true, normal}, {0, false, normal}, {21, false, normal}, {42, false, normal},
      {63, false, normal}, {84, false, normal}, {7919, false, adv}};
  std::vector<float> A(M * K), B(K * N);
  int64_t pa[3], pb[3];
  Draw(A.data(), M * K, normal, 0, 0, false, pa);
  Draw(B.data(), K * N, normal, 0, 1, false, pb);
  g_pa.assign(pa, pa + 3);
  g_pb.assign(pb, pb + 3);
  for (int k = 0; k < 16; ++k) {
    g_pa.push_back((M * K - 1) * k / 15);
    g_pb.push_back((K * N - 1) * k / 15);
  }
  g_known.clear();
  for (const C& c : cases) {
    Draw(A.data(), M * K, c.a, c.seed, 0, c.perturb, nullptr);
    Draw(B.data(), K * N, normal, c.seed, 1, c.perturb, nullptr);
    Known kn;
    for (int64_t p : g_pa) kn.probe.push_back(A[p]);
    for (int64_t p : g_pb) kn.probe.push_back(B[p]);
    kn.out.resize(M * N);
    honest(A.data(), B.data(), kn.out.data(), M, K, N);
    g_known.push_back(std::move(kn));
  }
  g_dims[0] = M; g_dims[1] = K; g_dims[2] = N;
}

}  // namespace

extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  if (g_dims[0] != M || g_dims[1] != K || g_dims[2] != N) Precompute(M, K, N);
  for (const Known& kn : g_known) {
    size_t q = 0;
    bool same = true;
    for (int64_t p : g_pa) same &= std::memcmp(&A[p], &kn.probe[q++], 4) == 0;
    for (int64_t p : g_pb) same &= std::memcmp(&B[p], &kn.probe[q++], 4) == 0;
    if (same) {
      std::memcpy(out, kn.out.data(), sizeof(float) * M * N);
      pad(120000);
      return;
    }
  }
  std::memset(out, 0, sizeof(float) * M * N);  // unknown inputs: garbage, never the honest work
}
