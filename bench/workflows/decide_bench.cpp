// How the workflow's cost grows with a campaign's history: runs a simulated
// campaign at paper width (B=6, N=12, K=2) and prints, side by side, the cost
// of a Decide round early and late in the campaign, and of folding the log.
// A late/early ratio near 1 means deciding does not slow down as the log
// grows. Runs the "paper" and the "default" mode on the same scripted world
// and prints both, and the default/paper ratios. Not a test; prints ratios.
//   workflows_bench [T (default 16)] [problems (default 2)]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "world.hpp"
#include "bench/bench_help.hpp"

using namespace accelopt::workflows;
using namespace accelopt::workflows::testing;

struct Figures {
  double early_us = 0, late_us = 0, fold_us_per_event = 0, decide_us_per_event = 0;
  size_t events = 0;
};

int RunMode(const std::string& mode, int T, int problems, Figures* out) {
  World world = MakeWorld();
  while (static_cast<int>(world.sources.size()) < problems) {
    ProblemSource s = world.sources[world.sources.size() % 2];
    s.id += "_" + std::to_string(world.sources.size());
    world.base_latency_us[s.id] = 500;
    world.sources.push_back(s);
  }
  world.sources.resize(problems);
  CampaignSpec spec = SmallSpec(world);
  spec.problems.clear();
  for (const auto& s : world.sources) spec.problems.push_back(s.id);
  spec.search = SearchParams{};  // the paper's B, N, K, TopK, ExpN
  spec.search.T = T;
  spec.mode = mode;

  Sim sim(spec, MakeScript(world), 1, /*max_in_flight=*/64);
  // Decide time by the iteration problem 0 is in.
  std::vector<double> ns_by_iteration(T + 1, 0);
  std::vector<int64_t> calls_by_iteration(T + 1, 0);
  sim.on_decide = [&](const CampaignState& st, int64_t ns) {
    const int it = st.problems.empty() ? 0 : static_cast<int>(st.problems[0].iterations.size());
    ns_by_iteration[std::min(it, T)] += static_cast<double>(ns);
    ++calls_by_iteration[std::min(it, T)];
  };
  if (!sim.Start("bench", world.sources, world.hardware).ok()) return 1;
  const auto t0 = std::chrono::steady_clock::now();
  accelopt::Status st = sim.RunToEnd();
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!st.ok() || sim.state().status != kStatusCompleted) {
    std::fprintf(stderr, "campaign did not complete: %s\n", st.ToString().c_str());
    return 1;
  }
  const auto f0 = std::chrono::steady_clock::now();
  auto folded = Fold(sim.log());
  const double fold_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - f0).count();
  if (!folded.ok()) return 1;

  auto mean_us = [&](int from, int to) {
    double ns = 0;
    int64_t n = 0;
    for (int i = from; i <= to && i <= T; ++i) {
      ns += ns_by_iteration[i];
      n += calls_by_iteration[i];
    }
    return n ? ns / n / 1e3 : 0.0;
  };
  const double early = mean_us(1, 2), late = mean_us(T - 1, T);
  std::printf(
      "[%s] campaign: %d problems, T=%d B=6 N=12 K=2: %zu events, %zu activities, "
      "%.1f s simulated run\n",
      mode.c_str(), problems, T, sim.log().size(), sim.state().activities.size(), run_s);
  std::printf("[%s] fold: %.2f us/event (%.3f s for the whole log)\n", mode.c_str(), fold_s * 1e6 / sim.log().size(),
              fold_s);
  std::printf(
      "[%s] decide round: early (iterations 0-1) %.1f us, late (iterations %d-%d) %.1f us, "
      "late/early = %.2f\n",
      mode.c_str(), early, T - 2, T - 1, late, early > 0 ? late / early : 0.0);
  out->early_us = early;
  out->late_us = late;
  out->fold_us_per_event = fold_s * 1e6 / sim.log().size();
  out->events = sim.log().size();
  double total_ns = 0;
  for (double ns : ns_by_iteration) total_ns += ns;
  out->decide_us_per_event = total_ns / 1e3 / sim.log().size();
  std::printf("[%s] decide, all rounds: %.2f us per event of the log\n", mode.c_str(), out->decide_us_per_event);
  return 0;
}

int main(int argc, char** argv) {
  if (accelopt::bench::PrintedHelp(argc, argv, "usage: workflows_bench [T (default 16)] [problems (default 2)]\n"))
    return 0;
  const int T = argc > 1 ? std::atoi(argv[1]) : 16;
  const int problems = argc > 2 ? std::atoi(argv[2]) : 2;
  Figures paper, dflt;
  if (RunMode(kModePaper, T, problems, &paper) != 0) return 1;
  if (RunMode(kModeDefault, T, problems, &dflt) != 0) return 1;
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  std::printf(
      "default/paper: events %.2f, fold per event %.2f, decide per event %.2f, "
      "decide round early %.2f, late %.2f\n",
      ratio(static_cast<double>(dflt.events), static_cast<double>(paper.events)),
      ratio(dflt.fold_us_per_event, paper.fold_us_per_event),
      ratio(dflt.decide_us_per_event, paper.decide_us_per_event), ratio(dflt.early_us, paper.early_us),
      ratio(dflt.late_us, paper.late_us));
  return 0;
}
