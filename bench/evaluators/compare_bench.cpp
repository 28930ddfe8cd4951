// compare_bench: does a side-by-side comparison of two kernels doing the same
// work claim a speedup that is not there, with the machine loaded?
//
//   compare_bench [--runs N] [--hogs K] [--cache-dir DIR] [problem_dir kernel.cpp compare.cpp]...
//
// Default pairs: tests/evaluators/kernels/fast_matmul.cpp against itself (the
// same code, an A/A test) and tests/evaluators/cheats/attack_history_steer.cpp
// against fast_matmul.cpp (the same matmul plus a hash of the inputs: no
// faster, whatever it memoizes). Each run is one evaluation with the other
// kernel interleaved (EvalRequest.compare_source). From that one judge run
// both speedup intervals are computed side by side:
//   paired: the median of the ratios of every timed pair of every round, with
//           the median's ~95% interval (what the evaluator reports);
//   apart:  the ratio of the two medians of the kept round, with the medians'
//           intervals combined (what it reported until December 2026).
// A run "claims faster" when the interval's low end is above 1/0.85 = 1.18x
// (the line cpu_backend_test's every_cheat_is_rejected_with_a_clear_reason
// draws for the cheats that only buy time), "claims slower" when the high
// end is below 0.85. With --hogs K, K threads of this process burn CPU in
// bursts of random length (1-40 ms on, 1-40 ms off) during the runs: the
// load of a fresh clone's ctest next to the evaluator.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_help.hpp"
#include "evaluators/cpu/cpu_backend.hpp"
#include "evaluators/stats.hpp"

using namespace accelopt;
using namespace accelopt::eval;

namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<double> Numbers(const json& a) {
  std::vector<double> v;
  if (a.is_array())
    for (const auto& x : a) v.push_back(x.get<double>());
  return v;
}

// Bursts of CPU work of random length with random pauses, until stop.
void Hog(std::atomic<bool>* stop, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> ms(1, 40);
  volatile double sink = 0;
  while (!stop->load()) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms(rng));
    while (std::chrono::steady_clock::now() < until)
      for (int i = 0; i < 1000; ++i) sink = sink + 1e-9 * i;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms(rng)));
  }
}

struct Tally {
  int runs = 0, faster = 0, slower = 0;
  std::vector<double> values, widths;
  void Add(const stats::Ratio& r, double limit) {
    ++runs;
    if (r.low > 1.0 / limit) ++faster;
    if (r.high < limit) ++slower;
    values.push_back(r.value);
    widths.push_back(r.high - r.low);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (accelopt::bench::PrintedHelp(
          argc, argv,
          "usage: compare_bench [--runs N] [--hogs K] [--cache-dir DIR] [problem_dir kernel.cpp compare.cpp]...\n"))
    return 0;
  int runs = 10, hogs = 0;
  std::string cache = std::string(ACCELOPT_BINARY_DIR) + "/eval-bench-cache";
  struct Pair {
    std::string problem, kernel, other;
  };
  std::vector<Pair> pairs;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--hogs") && i + 1 < argc)
      hogs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--cache-dir") && i + 1 < argc)
      cache = argv[++i];
    else if (i + 2 < argc) {
      pairs.push_back({argv[i], argv[i + 1], argv[i + 2]});
      i += 2;
    } else {
      std::fprintf(stderr, "compare_bench: unexpected argument %s (see --help)\n", argv[i]);
      return 2;
    }
  }
  const std::string src = ACCELOPT_SOURCE_DIR;
  if (pairs.empty()) {
    const std::string matmul = src + "/tests/evaluators/problems/matmul";
    const std::string fast = src + "/tests/evaluators/kernels/fast_matmul.cpp";
    pairs = {{matmul, fast, fast}, {matmul, src + "/tests/evaluators/cheats/attack_history_steer.cpp", fast}};
  }
  cpu::CpuBackendOptions o;
  o.env = Env::Default();
  o.cache_dir = cache;
  cpu::CpuBackend backend(o);
  auto cal = backend.GetCalibration();
  if (!cal.ok()) {
    std::fprintf(stderr, "calibration: %s\n", cal.status().ToString().c_str());
    return 1;
  }
  std::atomic<bool> stop{false};
  std::vector<std::thread> hog_threads;
  for (int k = 0; k < hogs; ++k) hog_threads.emplace_back(Hog, &stop, 1234u + static_cast<unsigned>(k));
  const double limit = 0.85;
  std::printf(
      "%d run(s) per pair, %d bursty hog thread(s); claims: low end > %.2fx (faster), high end < %.2fx (slower)\n",
      runs, hogs, 1 / limit, limit);
  bool all_ok = true;
  for (const auto& p : pairs) {
    Tally paired, apart;
    const std::string kname = p.kernel.substr(p.kernel.find_last_of('/') + 1);
    const std::string oname = p.other.substr(p.other.find_last_of('/') + 1);
    for (int r = 0; r < runs; ++r) {
      EvalRequest req;
      req.id = "bench";
      req.backend = "cpu";
      req.problem = p.problem;
      req.source = ReadText(p.kernel);
      req.compare_source = ReadText(p.other);
      EvalResult res = backend.Evaluate(req, nullptr);
      if (!res.latency || !res.comparison.is_object()) {
        std::fprintf(stderr, "%s: %s: %s\n", kname.c_str(), EvalStatusName(res.status), res.reason.c_str());
        all_ok = false;
        break;
      }
      const stats::Ratio now{res.comparison.value("speedup", 0.0), res.comparison.value("speedup_low", 0.0),
                             res.comparison.value("speedup_high", 0.0)};
      const stats::Ratio old =
          stats::SpeedupInterval(Numbers(res.comparison.value("baseline_samples_us", json())), res.latency->samples_us);
      paired.Add(now, limit);
      apart.Add(old, limit);
      std::printf("  %s vs %s run %d: paired %.3fx [%.3f-%.3f] (%d pairs) | apart %.3fx [%.3f-%.3f] (%zu samples)\n",
                  kname.c_str(), oname.c_str(), r + 1, now.value, now.low, now.high, res.comparison.value("pairs", 0),
                  old.value, old.low, old.high, res.latency->samples_us.size());
      std::fflush(stdout);
    }
    for (auto [name, t] : {std::pair<const char*, Tally*>{"paired", &paired}, {"apart", &apart}}) {
      if (!t->runs) continue;
      std::printf(
          "%-28s vs %-18s %-7s runs %3d  claims faster %3d  claims slower %3d  median speedup %.3f  median width "
          "%.3f\n",
          kname.c_str(), oname.c_str(), name, t->runs, t->faster, t->slower, stats::Median(t->values),
          stats::Median(t->widths));
    }
    if (paired.runs && apart.runs && stats::Median(paired.widths) > 0)
      std::printf("%-28s width(apart) / width(paired) = %.2f\n", kname.c_str(),
                  stats::Median(apart.widths) / stats::Median(paired.widths));
  }
  stop = true;
  for (auto& t : hog_threads) t.join();
  return all_ok ? 0 : 1;
}
