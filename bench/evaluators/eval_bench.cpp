// eval_bench: how repeatable and how costly is one cpu evaluation?
//
//   eval_bench [--runs N] [--cache-dir DIR] [--stock [--sync]] [problem_dir kernel.cpp]...
//
// Default kernels: the suite's silu baseline (memory bound, ~30 ms), the test
// matmul baseline (compute bound) and the test silu baseline (small, ~0.5 ms).
// For each, N evaluations (default 10) with each of two timing strategies,
// alternating, in one run: "1 round" (one 0.2 s timing round) and "default"
// (what the daemon uses: the fastest of at least 3 rounds), then:
//   repeatability: coefficient of variation of the reported median latency
//                  across the N evaluations (target <= 2%), and each
//                  evaluation's median in run order;
//   overhead:      per evaluation, wall time beyond the timed kernel calls:
//                  compile, checks (static + cached harness/references), and
//                  the harness run minus the timed samples (process start,
//                  correctness cases, input restores and output checks).
// A calibration is measured once (or loaded) first; its time is printed.
// --stock: as the daemon runs it, with each problem's stock of never-used
// timing cases refilled while no evaluation runs (cpu_backend.hpp
// refill_stock); before each evaluation the bench waits until the stock is
// full (the idle time a campaign has while the model writes), and prints
// that wait apart: it is not on the evaluation's critical path. Without it,
// every evaluation makes its own timing cases (accelopt-eval, the tests).
// --sync (with --stock): after the stock is full, sync(2) before the
// evaluation, so the stock's case files are written back before it and not
// during it (the page cache flushes dirty pages ~30 s after they were
// written, into whatever runs then); the sync's time is printed apart.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "evaluators/cpu/cpu_backend.hpp"
#include "evaluators/stats.hpp"
#include "bench/bench_help.hpp"

using namespace accelopt;
using namespace accelopt::eval;

static std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int main(int argc, char** argv) {
  if (accelopt::bench::PrintedHelp(
          argc, argv,
          "usage: eval_bench [--runs N] [--cache-dir DIR] [--stock [--sync]] [problem_dir kernel.cpp]...\n"))
    return 0;
  int runs = 10;
  std::string cache = std::string(ACCELOPT_BINARY_DIR) + "/eval-bench-cache";
  std::vector<std::pair<std::string, std::string>> kernels;
  bool stock = false, sync_stock = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--stock"))
      stock = true;
    else if (!std::strcmp(argv[i], "--sync"))
      sync_stock = true;
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--cache-dir") && i + 1 < argc)
      cache = argv[++i];
    else if (argv[i][0] != '-' && i + 1 < argc) {
      kernels.emplace_back(argv[i], argv[i + 1]);
      ++i;
    } else {
      std::fprintf(stderr, "eval_bench: unknown or incomplete argument '%s' (--help)\n", argv[i]);
      return 2;
    }
  }
  if (sync_stock && !stock) {
    std::fprintf(stderr, "eval_bench: --sync needs --stock\n");
    return 2;
  }
  const std::string src = ACCELOPT_SOURCE_DIR;
  if (kernels.empty()) {
    kernels = {{src + "/suites/cpu/silu", src + "/suites/cpu/silu/baseline.cpp"},
               {src + "/tests/evaluators/problems/matmul", src + "/tests/evaluators/problems/matmul/baseline.cpp"},
               {src + "/tests/evaluators/problems/silu", src + "/tests/evaluators/problems/silu/baseline.cpp"}};
  }
  cpu::CpuBackendOptions o;
  o.env = Env::Default();
  o.cache_dir = cache;
  o.refill_stock = stock;
  cpu::CpuBackend backend(o);
  // --stock: the idle time before an evaluation in which the stock fills.
  double idle_s = 0, sync_s = 0;
  auto wait_for_stock = [&] {
    const auto w0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (int k = 0; k < 6000 && !backend.StockFilled(); ++k)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    idle_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    if (sync_stock) {
      const auto s0 = std::chrono::steady_clock::now();
      ::sync();
      sync_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    }
  };
  auto t0 = std::chrono::steady_clock::now();
  auto cal = backend.GetCalibration();
  if (!cal.ok()) {
    std::fprintf(stderr, "calibration: %s\n", cal.status().ToString().c_str());
    return 1;
  }
  std::printf("calibration: %.1f GFLOP/s, %zu bandwidth points, %.2f s (load average %.2f when measured)\n",
              cal->peak_gflops, cal->bandwidth.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), cal->load_average);
  // Timing strategies compared side by side: evaluations of each kernel
  // alternate between them, so both see the same machine noise.
  struct Strategy {
    const char* name;
    EvalSettings settings;
  };
  std::vector<Strategy> strategies;
  {
    EvalSettings one;  // one round of 0.2 s: what a plain timing loop does
    one.min_rounds = 1;
    one.max_rounds = 1;
    one.min_time_s = 0.2;
    strategies.push_back({"1 round", one});
    strategies.push_back({"default", EvalSettings{}});  // fastest of >= 3 rounds
  }
  std::printf("%-20s %-8s %4s %12s %7s %9s | %8s %8s %8s %9s %9s %7s\n", "kernel", "timing", "runs", "median_us", "cv%",
              "spread%", "compile", "checks", "run-kern", "overhead", "kernel_s", "ratio");
  bool all_ok = true;
  for (const auto& [problem, kernel] : kernels) {
    struct Acc {
      std::vector<double> medians, spreads, compile, checks, run_extra, overhead, kernel_time;
    };
    std::vector<Acc> acc(strategies.size());
    EvalRequest warm{"bench", "cpu", problem, ReadText(kernel), EvalSettings{}};
    backend.Evaluate(warm, nullptr);  // first: builds the harness and references (not counted)
    for (int r = 0; r < runs && all_ok; ++r) {
      for (size_t si = 0; si < strategies.size(); ++si) {
        EvalRequest req{"bench", "cpu", problem, ReadText(kernel), strategies[si].settings};
        if (stock) wait_for_stock();
        EvalResult res = backend.Evaluate(req, nullptr);
        if (!res.latency || !res.correct) {
          std::fprintf(stderr, "%s: %s: %s\n", problem.c_str(), EvalStatusName(res.status), res.reason.c_str());
          all_ok = false;
          break;
        }
        double sampled = 0;
        for (double x : res.latency->samples_us) sampled += x * 1e-6;
        // Kernel time of the rounds not kept is not in samples_us; count it
        // as kernel time too (rounds * kept round's time, approximately).
        sampled *= std::max(1, res.latency->rounds);
        // A sample of a batched evaluation is the mean of calls_per_sample calls.
        if (auto it = res.profile.find("calls_per_sample"); it != res.profile.end())
          sampled *= std::max(1.0, it->second);
        Acc& a = acc[si];
        a.medians.push_back(res.latency->median_us);
        a.spreads.push_back(res.latency->spread);
        a.compile.push_back(res.timings.compile_s);
        a.checks.push_back(res.timings.check_s);
        a.run_extra.push_back(res.timings.measure_s - sampled);
        a.overhead.push_back(res.timings.total_s - sampled);
        a.kernel_time.push_back(sampled);
      }
    }
    std::string name = problem.substr(problem.find_last_of('/', problem.find_last_of('/') - 1) + 1);
    std::vector<double> cvs;
    for (size_t si = 0; si < strategies.size(); ++si) {
      const Acc& a = acc[si];
      if (a.medians.empty()) continue;
      double cv = 100 * eval::stats::CoefficientOfVariation(a.medians);
      cvs.push_back(cv);
      std::printf("%-20s %-8s %4zu %12.1f %7.2f %9.2f | %8.3f %8.3f %8.3f %9.3f %9.3f %7.2f  %s\n", name.c_str(),
                  strategies[si].name, a.medians.size(), eval::stats::Median(a.medians), cv,
                  100 * eval::stats::Median(a.spreads), eval::stats::Mean(a.compile), eval::stats::Mean(a.checks),
                  eval::stats::Mean(a.run_extra), eval::stats::Mean(a.overhead), eval::stats::Mean(a.kernel_time),
                  eval::stats::Mean(a.overhead) / eval::stats::Mean(a.kernel_time), cv <= 2.0 ? "cv ok" : "cv > 2%");
    }
    // Each evaluation's median in run order: one outlier and a broad spread
    // give the same CV and call for different fixes.
    for (size_t si = 0; si < strategies.size(); ++si) {
      std::printf("%-20s %-8s medians_us:", name.c_str(), strategies[si].name);
      for (double m : acc[si].medians) std::printf(" %.1f", m);
      std::printf("\n");
    }
    if (cvs.size() == 2 && cvs[1] > 0) {
      std::printf("%-20s cv(1 round) / cv(default) = %.2f\n", name.c_str(), cvs[0] / cvs[1]);
    }
    if (stock) {
      std::printf("%-20s stock: %.2f s of idle refill per evaluation (before it, not counted above)\n", name.c_str(),
                  idle_s / std::max(1, 2 * runs));
      if (sync_stock)
        std::printf("%-20s sync: %.2f s per evaluation (before it, not counted above)\n", name.c_str(),
                    sync_s / std::max(1, 2 * runs));
      idle_s = 0;
      sync_s = 0;
    }
  }
  std::printf(
      "columns: seconds per evaluation (means); overhead = total - timed kernel calls; ratio = overhead / timed kernel "
      "time\n");
  return all_ok ? 0 : 1;
}
