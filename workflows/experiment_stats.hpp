// Statistics of an experiment (arms x problems x seeds of campaigns): what
// an arm achieved, whether one arm beats another, how many seeds that takes,
// and what it cost. Pure functions of numbers taken from campaign reports
// and event logs, so that they can be tested on synthetic data.
//
// The unit of replication is the seed: arms that share a seed and a problem
// are paired (same baseline, same judge slots when scheduled interleaved).
// A comparison of arm B against arm A takes, per (problem, seed) present in
// both, d = ln(metric_B) - ln(metric_A) (metric: the best kernel's speedup
// over the baseline, or its % of peak); per seed the mean of d over the
// problems; and estimates the geomean ratio exp(mean over seeds). Problems
// are fixed (the question is about these kernels), seeds random.
//
// Intervals of mean d over n seeds, as a percentage (100 (e^x - 1)):
//  * kStudentT: mean ± t(1-α/2, n-1) s/√n, exact for normally distributed
//    per-seed means; the default below 20 seeds (a bootstrap undercovers
//    there);
//  * kBootstrap: percentile bootstrap over seeds with `resamples` draws from
//    Rng(seed, "bootstrap") — deterministic for the same input.
// n < 2 gives no interval (resolved = false).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workflows/event.hpp"

namespace accelopt::workflows {

// One campaign of one arm: what its report says for one problem.
struct ArmRun {
  std::string arm;
  std::string problem;
  int64_t seed = 0;
  double speedup = 0;          // baseline latency / best latency; <= 0: no result
  double percent_of_peak = 0;  // the best kernel's; <= 0: unknown
  double cost_usd = 0;         // this (campaign, problem)'s share of the spend
};

enum class Metric { kSpeedup, kPercentOfPeak };
enum class IntervalMethod { kAuto, kStudentT, kBootstrap };

struct IntervalOptions {
  double confidence = 0.95;
  IntervalMethod method = IntervalMethod::kAuto;  // kStudentT below 20 seeds, else kBootstrap
  int resamples = 2000;
  uint64_t seed = 1;
};

struct Interval {
  bool resolved = false;  // an interval exists (n >= 2)
  double estimate = 0;    // mean of the per-seed log ratios
  double lo = 0, hi = 0;  // its interval, in log units
  std::string method;     // "t" | "bootstrap" | ""
};

// The interval of the mean of `x` (REQUIRES: finite values).
Interval MeanInterval(const std::vector<double>& x, const IntervalOptions& o);

// Quantile p of Student's t with `df` degrees of freedom (df >= 1,
// 0 < p < 1), by bisection on its CDF (regularized incomplete beta).
double StudentTQuantile(double p, double df);

struct PairedDifference {
  std::string problem;
  int64_t seed = 0;
  double a = 0, b = 0;   // the metric of each arm
  double log_ratio = 0;  // ln(b / a)
};

struct Comparison {
  std::string arm_a, arm_b;             // b against a
  std::vector<PairedDifference> pairs;  // (problem, seed) with a result in both
  std::map<int64_t, double> per_seed;   // seed -> mean log ratio over its problems
  int seeds = 0, problems = 0;
  Interval interval;                                   // of the mean over seeds
  double geomean_ratio = 1;                            // exp(interval.estimate)
  double percent = 0, percent_lo = 0, percent_hi = 0;  // 100 (e^x - 1)
  // The smallest effect (in %, either sign) these seeds resolve with 80%
  // power at the observed spread of the per-seed means; 0 when unknown.
  double resolvable_percent = 0;
  bool excludes_zero() const { return interval.resolved && (interval.lo > 0 || interval.hi < 0); }
};

// Pairs runs of `arm_b` with runs of `arm_a` by (problem, seed) (a run with
// no result in either arm is left out: it is counted by Summaries, not here).
Comparison Compare(const std::vector<ArmRun>& runs, const std::string& arm_a, const std::string& arm_b, Metric metric,
                   const IntervalOptions& o);

// The smallest true effect (log units) n seeds with per-seed standard
// deviation `sd` detect with `power` at two-sided level 1 - confidence:
// (t(1-α/2, n-1) + t(power, n-1)) sd / √n. REQUIRES: n >= 2.
double ResolvableLogEffect(int n, double sd, double confidence = 0.95, double power = 0.8);
// The fewest seeds (2..max_seeds) that resolve `log_effect` at `sd`; 0 if
// even max_seeds do not.
int SeedsNeeded(double log_effect, double sd, int max_seeds = 1000, double confidence = 0.95, double power = 0.8);

// The plain sentence for a question: "memory on vs off: geomean +4.1%
// [+1.2%, +7.0%] over 5 seeds on 3 problems" when the interval excludes 0,
// else "memory on vs off: not resolved at 5 seeds (geomean +1.0% [-2.3%,
// +4.4%] on 3 problems; about ±3.9% is resolvable at this spread)".
std::string Verdict(const std::string& question, const Comparison& c);

// Per target problem: did arm B help, hurt or could it not be told apart
// from arm A on this problem alone? The comparison of the problem's runs
// only (paired by seed, the interval over seeds as in Compare): "helped"
// when the interval lies above 0, "hurt" when below (for a transfer arm:
// negative transfer), "unresolved" otherwise (fewer than 2 seeds with a
// result in both arms included). Problems in the order first seen in
// `runs`.
struct ProblemOutcome {
  std::string problem;
  Comparison comparison;
  std::string outcome;  // "helped" | "hurt" | "unresolved"
};
std::vector<ProblemOutcome> PerProblem(const std::vector<ArmRun>& runs, const std::string& arm_a,
                                       const std::string& arm_b, Metric metric, const IntervalOptions& o);

struct ArmSummary {
  std::string arm;
  int runs = 0, runs_without_result = 0;
  int seeds = 0, problems = 0;
  double geomean_speedup = 0;          // over runs with a result; 0 when none
  double geomean_percent_of_peak = 0;  // over runs with a known % of peak
  double cost_usd = 0;                 // total over its runs
  double cost_per_seed_usd = 0;
};
std::vector<ArmSummary> Summaries(const std::vector<ArmRun>& runs);

// The cost-efficiency curve of one campaign from its events: after each LLM
// call or evaluation, the dollars and the tokens (input + output, as the
// calls' usage says) spent so far and the geomean over problems of the best
// % of peak found so far (each problem's baseline counts once it is
// measured; points start when every problem that ever reports a % has one).
// A step is emitted only when the spend (dollars or tokens) or the % changes.
struct CostPoint {
  double cost_usd = 0;
  double best_percent_of_peak = 0;
  int64_t tokens = 0;
};
std::vector<CostPoint> CostEfficiencyCurve(const std::vector<Event>& events);

// True when the campaign's LLM calls were all priced at $0 (a model served
// locally): at least one call has cost_source "zero_price" and every other
// has "zero_price" or "none" (a failed call that returned nothing). Its
// cost curve is then flat at $0 and tokens measure the spend instead.
bool AllZeroPriced(const std::vector<Event>& events);

// The best % of peak reached by `cost_usd` dollars on a curve (0 before its
// first point).
double BestAtCost(const std::vector<CostPoint>& curve, double cost_usd);

}  // namespace accelopt::workflows
