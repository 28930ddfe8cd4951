#include "workflows/experiment_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>

#include "workflows/rng.hpp"

namespace accelopt::workflows {

namespace {

// Continued fraction of the incomplete beta function (modified Lentz).
double BetaContinuedFraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < 1e-15) break;
  }
  return h;
}

// Regularized incomplete beta I_x(a, b).
double IncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

double StudentTCdf(double t, double df) {
  const double tail = 0.5 * IncompleteBeta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

double Mean(const std::vector<double>& x) {
  return x.empty() ? 0 : std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double SampleSd(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  const double m = Mean(x);
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

double Pct(double log_value) { return 100 * std::expm1(log_value); }

std::string SignedPct(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", pct);
  return buf;
}

}  // namespace

double StudentTQuantile(double p, double df) {
  double lo = -1e3, hi = 1e3;
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = (lo + hi) / 2;
    (StudentTCdf(mid, df) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

Interval MeanInterval(const std::vector<double>& x, const IntervalOptions& o) {
  Interval out;
  out.estimate = Mean(x);
  const size_t n = x.size();
  if (n < 2) return out;
  const double alpha = 1 - o.confidence;
  IntervalMethod method = o.method;
  if (method == IntervalMethod::kAuto) method = n < 20 ? IntervalMethod::kStudentT : IntervalMethod::kBootstrap;
  out.resolved = true;
  if (method == IntervalMethod::kStudentT) {
    const double half =
        StudentTQuantile(1 - alpha / 2, static_cast<double>(n - 1)) * SampleSd(x) / std::sqrt(static_cast<double>(n));
    out.lo = out.estimate - half;
    out.hi = out.estimate + half;
    out.method = "t";
    return out;
  }
  Rng rng(o.seed, "bootstrap");
  std::vector<double> means;
  means.reserve(static_cast<size_t>(std::max(o.resamples, 1)));
  for (int r = 0; r < std::max(o.resamples, 1); ++r) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += x[rng.Uniform(n)];
    means.push_back(sum / static_cast<double>(n));
  }
  std::sort(means.begin(), means.end());
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(means.size() - 1);
    const size_t i = static_cast<size_t>(pos);
    const double f = pos - static_cast<double>(i);
    return i + 1 < means.size() ? means[i] * (1 - f) + means[i + 1] * f : means[i];
  };
  out.lo = at(alpha / 2);
  out.hi = at(1 - alpha / 2);
  out.method = "bootstrap";
  return out;
}

double ResolvableLogEffect(int n, double sd, double confidence, double power) {
  const double df = static_cast<double>(n - 1);
  return (StudentTQuantile(1 - (1 - confidence) / 2, df) + StudentTQuantile(power, df)) * sd /
         std::sqrt(static_cast<double>(n));
}

int SeedsNeeded(double log_effect, double sd, int max_seeds, double confidence, double power) {
  const double effect = std::fabs(log_effect);
  for (int n = 2; n <= max_seeds; ++n) {
    if (ResolvableLogEffect(n, sd, confidence, power) <= effect) return n;
  }
  return 0;
}

Comparison Compare(const std::vector<ArmRun>& runs, const std::string& arm_a, const std::string& arm_b, Metric metric,
                   const IntervalOptions& o) {
  Comparison c;
  c.arm_a = arm_a;
  c.arm_b = arm_b;
  auto value = [metric](const ArmRun& r) { return metric == Metric::kSpeedup ? r.speedup : r.percent_of_peak; };
  std::map<std::pair<std::string, int64_t>, double> a;
  for (const ArmRun& r : runs) {
    if (r.arm == arm_a && value(r) > 0) a[{r.problem, r.seed}] = value(r);
  }
  std::map<int64_t, std::vector<double>> by_seed;
  std::set<std::string> problems;
  for (const ArmRun& r : runs) {
    if (r.arm != arm_b || !(value(r) > 0)) continue;
    auto found = a.find({r.problem, r.seed});
    if (found == a.end()) continue;
    PairedDifference d{r.problem, r.seed, found->second, value(r), std::log(value(r) / found->second)};
    by_seed[r.seed].push_back(d.log_ratio);
    problems.insert(r.problem);
    c.pairs.push_back(std::move(d));
  }
  std::vector<double> means;
  for (const auto& [seed, ds] : by_seed) {
    c.per_seed[seed] = Mean(ds);
    means.push_back(c.per_seed[seed]);
  }
  c.seeds = static_cast<int>(means.size());
  c.problems = static_cast<int>(problems.size());
  c.interval = MeanInterval(means, o);
  c.geomean_ratio = std::exp(c.interval.estimate);
  c.percent = Pct(c.interval.estimate);
  c.percent_lo = Pct(c.interval.lo);
  c.percent_hi = Pct(c.interval.hi);
  if (c.seeds >= 2 && SampleSd(means) > 0) {
    c.resolvable_percent = Pct(ResolvableLogEffect(c.seeds, SampleSd(means), o.confidence));
  }
  return c;
}

std::string Verdict(const std::string& question, const Comparison& c) {
  const std::string seeds = std::to_string(c.seeds) + (c.seeds == 1 ? " seed" : " seeds");
  const std::string problems = std::to_string(c.problems) + (c.problems == 1 ? " problem" : " problems");
  if (!c.interval.resolved) {
    return question + ": not resolved at " + seeds + " (an interval needs at least 2 paired seeds; " +
           std::to_string(c.pairs.size()) + " paired results on " + problems + ")";
  }
  const std::string est =
      "geomean " + SignedPct(c.percent) + " [" + SignedPct(c.percent_lo) + ", " + SignedPct(c.percent_hi) + "]";
  if (c.excludes_zero()) return question + ": " + est + " over " + seeds + " on " + problems;
  std::string s = question + ": not resolved at " + seeds + " (" + est + " on " + problems;
  if (c.resolvable_percent > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "; about ±%.1f%% is resolvable at this spread", c.resolvable_percent);
    s += buf;
  }
  return s + ")";
}

std::vector<ProblemOutcome> PerProblem(const std::vector<ArmRun>& runs, const std::string& arm_a,
                                       const std::string& arm_b, Metric metric, const IntervalOptions& o) {
  std::vector<std::string> order;
  for (const ArmRun& r : runs) {
    if (std::find(order.begin(), order.end(), r.problem) == order.end()) order.push_back(r.problem);
  }
  std::vector<ProblemOutcome> out;
  for (const std::string& problem : order) {
    std::vector<ArmRun> mine;
    for (const ArmRun& r : runs) {
      if (r.problem == problem) mine.push_back(r);
    }
    ProblemOutcome po{problem, Compare(mine, arm_a, arm_b, metric, o), "unresolved"};
    if (po.comparison.excludes_zero()) po.outcome = po.comparison.interval.lo > 0 ? "helped" : "hurt";
    out.push_back(std::move(po));
  }
  return out;
}

std::vector<ArmSummary> Summaries(const std::vector<ArmRun>& runs) {
  std::map<std::string, ArmSummary> by;
  std::map<std::string, std::set<int64_t>> seeds;
  std::map<std::string, std::set<std::string>> problems;
  std::map<std::string, std::pair<double, int>> log_speedup, log_pct;
  for (const ArmRun& r : runs) {
    ArmSummary& s = by[r.arm];
    s.arm = r.arm;
    ++s.runs;
    s.cost_usd += r.cost_usd;
    seeds[r.arm].insert(r.seed);
    problems[r.arm].insert(r.problem);
    if (r.speedup > 0) {
      log_speedup[r.arm].first += std::log(r.speedup);
      ++log_speedup[r.arm].second;
    } else {
      ++s.runs_without_result;
    }
    if (r.percent_of_peak > 0) {
      log_pct[r.arm].first += std::log(r.percent_of_peak);
      ++log_pct[r.arm].second;
    }
  }
  std::vector<ArmSummary> out;
  for (auto& [arm, s] : by) {
    s.seeds = static_cast<int>(seeds[arm].size());
    s.problems = static_cast<int>(problems[arm].size());
    if (auto [sum, n] = log_speedup[arm]; n > 0) s.geomean_speedup = std::exp(sum / n);
    if (auto [sum, n] = log_pct[arm]; n > 0) s.geomean_percent_of_peak = std::exp(sum / n);
    s.cost_per_seed_usd = s.seeds > 0 ? s.cost_usd / s.seeds : 0;
    out.push_back(s);
  }
  return out;
}

std::vector<CostPoint> CostEfficiencyCurve(const std::vector<Event>& events) {
  std::map<std::string, int> problem_of;  // evaluation activity -> problem
  std::set<int> reporting;                // problems with any % of peak
  for (const Event& e : events) {
    if (e.type == event_type::kActivityScheduled && e.data.value("kind", "") == "evaluation") {
      problem_of[e.data.value("activity_id", "")] = e.data.value("problem", -1);
    }
  }
  auto pct_of = [](const Event& e) {
    const json& r = e.data.contains("result") ? e.data["result"] : json();
    if (!r.is_object() || r.value("status", "") != "ok" || !r.value("correct", false)) return -1.0;
    const json& p = r.contains("percent_of_peak") ? r["percent_of_peak"] : json();
    return p.is_number() ? p.get<double>() : -1.0;
  };
  for (const Event& e : events) {
    if (e.type != event_type::kEvaluationCompleted || pct_of(e) <= 0) continue;
    auto p = problem_of.find(e.data.value("activity_id", ""));
    if (p != problem_of.end()) reporting.insert(p->second);
  }
  std::vector<CostPoint> out;
  std::map<int, double> best;
  double cost = 0;
  int64_t tokens = 0;
  for (const Event& e : events) {
    if (e.type == event_type::kLlmCallCompleted || e.type == event_type::kLlmCallFailed) {
      const json& c = e.data.contains("cost_usd") ? e.data["cost_usd"] : json();
      if (c.is_number()) cost += c.get<double>();
      const json& u = e.data.contains("usage") ? e.data["usage"] : json();
      if (u.is_object()) {
        for (const char* k : {"input_tokens", "output_tokens"}) {
          if (u.contains(k) && u[k].is_number_integer()) tokens += u[k].get<int64_t>();
        }
      }
    } else if (e.type == event_type::kEvaluationCompleted) {
      const double pct = pct_of(e);
      auto p = problem_of.find(e.data.value("activity_id", ""));
      if (pct > 0 && p != problem_of.end() && pct > best[p->second]) best[p->second] = pct;
    } else {
      continue;
    }
    if (reporting.empty() || best.size() < reporting.size()) continue;
    double log_sum = 0;
    for (const auto& [problem, v] : best) log_sum += std::log(v);
    const CostPoint point{cost, std::exp(log_sum / static_cast<double>(best.size())), tokens};
    const bool same_spend = !out.empty() && out.back().cost_usd == point.cost_usd && out.back().tokens == point.tokens;
    if (same_spend && out.back().best_percent_of_peak == point.best_percent_of_peak) continue;
    if (same_spend) {
      out.back() = point;  // same spend, better kernel: one point
    } else {
      out.push_back(point);
    }
  }
  return out;
}

bool AllZeroPriced(const std::vector<Event>& events) {
  bool zero = false;
  for (const Event& e : events) {
    if (e.type != event_type::kLlmCallCompleted && e.type != event_type::kLlmCallFailed) continue;
    const std::string source = e.data.value("cost_source", "");
    if (source == "zero_price") {
      zero = true;
    } else if (source != "none") {
      return false;
    }
  }
  return zero;
}

double BestAtCost(const std::vector<CostPoint>& curve, double cost_usd) {
  double best = 0;
  for (const CostPoint& p : curve) {
    if (p.cost_usd > cost_usd) break;
    best = p.best_percent_of_peak;
  }
  return best;
}

}  // namespace accelopt::workflows
