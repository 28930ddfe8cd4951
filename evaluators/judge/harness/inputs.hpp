// Input generation of the judge: every input of a case drawn from the case's
// seed, counter-based (element k depends only on (stream, k)). The seeds are
// secret: the evaluator derives them from a key the runner never sees
// (harness_builder.cpp MakeCases), so knowing this code does not let a
// kernel predict its inputs. Included once, by judge_main.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "evaluators/judge/harness/job.hpp"

namespace judge {

struct SplitMix {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double Normal() {
    double u1 = Uniform(), u2 = Uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
  double Draw(const Dist& d) {
    if (d.kind == "normal") return d.a + d.b * Normal();
    if (d.kind == "uniform") return d.a + (d.b - d.a) * Uniform();
    if (d.kind == "abs_normal") return std::fabs(d.a * Normal()) + d.b;
    if (d.kind == "constant") return d.a;
    Die("unknown distribution " + d.kind);
  }
};

inline uint64_t StreamSeed(uint64_t seed, int param, uint64_t salt) {
  SplitMix m{seed * 0x100000001b3ULL + static_cast<uint64_t>(param) * 7919 + salt};
  return m.Next();
}

inline uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline double U01(uint64_t stream, uint64_t k) {  // (0, 1]
  return (static_cast<double>(Mix(stream + 0x9e3779b97f4a7c15ULL * (k + 1)) >> 11) + 1.0) * 0x1.0p-53;
}

inline void FillDist(float* x, int64_t n, const Dist& d, uint64_t stream) {
  if (d.kind == "normal" || d.kind == "abs_normal") {
    const double mean = d.kind == "normal" ? d.a : 0, sd = d.kind == "normal" ? d.b : d.a;
    for (int64_t k = 0; k < n; k += 2) {
      double r = std::sqrt(-2 * std::log(U01(stream, k))), t = 2 * M_PI * U01(stream, k + 1);
      double v0 = mean + sd * r * std::cos(t), v1 = mean + sd * r * std::sin(t);
      if (d.kind == "abs_normal") {
        v0 = std::fabs(v0) + d.b;
        v1 = std::fabs(v1) + d.b;
      }
      x[k] = static_cast<float>(v0);
      if (k + 1 < n) x[k + 1] = static_cast<float>(v1);
    }
  } else if (d.kind == "uniform") {
    for (int64_t k = 0; k < n; ++k) x[k] = static_cast<float>(d.a + (d.b - d.a) * (U01(stream, k) - 0x1.0p-53));
  } else if (d.kind == "constant") {
    for (int64_t k = 0; k < n; ++k) x[k] = static_cast<float>(d.a);
  } else {
    Die("unknown distribution " + d.kind);
  }
}

// Fills every input of `c` into bufs[param] (nullptr for non-inputs).
inline void DrawInputs(const Job& job, const Case& c, const std::vector<float*>& bufs) {
  for (size_t i = 0; i < job.params.size(); ++i) {
    const Param& p = job.params[i];
    if (p.kind != 'i') continue;
    Dist d = p.dist;
    for (const auto& [idx, od] : c.overrides)
      if (idx == static_cast<int>(i)) d = od;
    float* x = bufs[i];
    FillDist(x, p.elements, d, StreamSeed(c.seed, static_cast<int>(i), 0));
    if (c.perturb) {  // change a few elements somewhere inside; the rest stays bit-identical
      SplitMix prng{StreamSeed(c.seed, static_cast<int>(i), 0x9e7u)};
      for (int k = 0; k < 3; ++k) {
        int64_t pos = static_cast<int64_t>(prng.Uniform() * static_cast<double>(p.elements));
        float old = x[pos];
        float nv = static_cast<float>(prng.Draw(d));
        if (nv == old) nv = old + 1.0f;
        x[pos] = nv;
      }
    }
  }
}

}  // namespace judge
