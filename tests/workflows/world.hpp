// A small scripted world for campaign tests: two cpu problems whose kernels
// carry a "LEVEL=<L>" marker, an executor that (by plan and sample) writes a
// faster kernel, a slower one, a reply without code, or the wrong function,
// and an evaluator whose latency follows the marker:
//   latency = base / 1.5^L  (x 1.5 more for a SLOW variant)
// so the best reachable after T iterations is LEVEL=T, a speedup of 1.5^T.
#pragma once

#include <string>
#include <vector>

#include "sim.hpp"

namespace accelopt::workflows::testing {

inline constexpr double kLevelFactor = 1.5;

struct World {
  std::vector<ProblemSource> sources;
  json hardware;
  std::map<std::string, double> base_latency_us;  // by problem id
  double peak_fraction = 0.1;                     // peak latency = base * this
};

World MakeWorld();

// 2 problems, T=3, B=2, N=2, K=2 unless changed; priced roles.
CampaignSpec SmallSpec(const World& w);

// role by content: see world.cpp.
Script MakeScript(const World& w);

// "default" mode: SmallSpec in mode "default".
CampaignSpec DefaultSpec(const World& w);

// MakeScript with faults for the "default" mode's fixer and de-duplication:
// executor sample n0/k1 writes a BROKEN kernel one level up (the evaluator
// says compile_error, with a long error text); its fix (".../fix/...")
// writes the n0/k0 kernel again with other comments and spacing. Planners
// name experience 1 ("Used experiences: 1") when the memory has one.
Script MakeFaultyScript(const World& w);

// LEVEL=<L> marker of a kernel source (-1 when absent), and whether SLOW.
int LevelOf(const std::string& source);
bool IsSlow(const std::string& source);

// A kernel source of `function` at `level`.
std::string Kernel(const std::string& function, int level, bool slow = false);

}  // namespace accelopt::workflows::testing
