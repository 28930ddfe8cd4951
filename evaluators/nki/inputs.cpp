#include "evaluators/nki/inputs.hpp"

#include <cmath>

namespace accelopt::eval::nki {
namespace {

uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double U01(uint64_t stream, uint64_t k) {  // (0, 1]
  return (static_cast<double>(Mix(stream + 0x9e3779b97f4a7c15ULL * (k + 1)) >> 11) + 1.0) * 0x1.0p-53;
}

}  // namespace

uint64_t InputStream(uint64_t secret_key, int c, int param) {
  return Mix(Mix(secret_key ^ (0x5851f42d4c957f2dULL * static_cast<uint64_t>(c + 1))) +
             0x14057b7ef767814fULL * static_cast<uint64_t>(param + 1));
}

void FillInput(float* x, int64_t n, const workflows::Distribution& d, uint64_t stream, int64_t first) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = first + i;
    double v;
    if (d.kind == "uniform") {
      v = d.a + (d.b - d.a) * (U01(stream, 2 * k) - 0x1.0p-53);
    } else if (d.kind == "constant") {
      v = d.a;
    } else {
      const double g = std::sqrt(-2 * std::log(U01(stream, 2 * k))) * std::cos(2 * M_PI * U01(stream, 2 * k + 1));
      v = d.kind == "abs_normal" ? std::fabs(d.a * g) + d.b : d.a + d.b * g;
    }
    x[i] = static_cast<float>(v);
  }
}

workflows::Distribution CaseDistribution(const workflows::ProblemSpec& problem, const workflows::Param& p, int c,
                                         int normal_cases) {
  if (c >= normal_cases) {
    const size_t a = static_cast<size_t>(c - normal_cases);
    if (a < problem.adversarial.size())
      for (const auto& [name, d] : problem.adversarial[a].overrides)
        if (name == p.name) return d;
  }
  return p.distribution;
}

std::vector<int64_t> ResolvedShape(const workflows::ProblemSpec& problem, const workflows::Param& p) {
  std::vector<int64_t> out;
  for (const auto& s : p.shape) {
    auto it = problem.dims.find(s);
    out.push_back(it != problem.dims.end() ? it->second : std::stoll(s));
  }
  return out;
}

}  // namespace accelopt::eval::nki
