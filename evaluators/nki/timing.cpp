#include "evaluators/nki/timing.hpp"

#include <algorithm>
#include <cmath>

#include "evaluators/stats.hpp"

namespace accelopt::eval::nki {

Result<TimingRound> SummarizeRound(const std::vector<double>& samples_s) {
  if (samples_s.empty()) return InvalidArgument("a timing round with no samples");
  for (double s : samples_s)
    if (!(s > 0) || !std::isfinite(s)) return InvalidArgument("a device time that is not a positive finite time");
  TimingRound r;
  r.samples_s = samples_s;
  r.min_s = *std::min_element(samples_s.begin(), samples_s.end());
  r.max_s = *std::max_element(samples_s.begin(), samples_s.end());
  r.mean_s = stats::Mean(samples_s);
  r.median_s = stats::Median(samples_s);
  r.rel_diff = (r.max_s - r.min_s) / r.min_s;
  return r;
}

bool NeedAnotherRound(const std::vector<TimingRound>& rounds, const TimingRule& rule) {
  if (rounds.empty()) return true;
  if (static_cast<int>(rounds.size()) >= rule.max_rounds) return false;
  return rounds.back().rel_diff > rule.max_rel_diff;
}

Result<TimingResult> ChooseRound(const std::vector<TimingRound>& rounds, const TimingRule& rule) {
  if (rounds.empty()) return InvalidArgument("no timing rounds");
  if (static_cast<int>(rounds.size()) > rule.max_rounds) {
    return InvalidArgument(std::to_string(rounds.size()) + " timing rounds; the rule allows " +
                           std::to_string(rule.max_rounds));
  }
  TimingResult t;
  t.rounds = rounds;
  for (size_t i = 0; i < rounds.size(); ++i) {
    if (static_cast<int>(rounds[i].samples_s.size()) != rule.iterations) {
      return InvalidArgument("timing round " + std::to_string(i) + " has " +
                             std::to_string(rounds[i].samples_s.size()) + " samples, expected " +
                             std::to_string(rule.iterations));
    }
    if (rounds[i].rel_diff < rounds[t.kept].rel_diff) t.kept = i;
  }
  const TimingRound& k = rounds[t.kept];
  t.latency_s = k.mean_s;
  t.median_s = k.median_s;
  t.stable = k.rel_diff <= rule.max_rel_diff;
  return t;
}

json TimingResult::ToJson() const {
  json rs = json::array();
  for (const auto& r : rounds) {
    json us = json::array();
    for (double s : r.samples_s) us.push_back(s * 1e6);
    rs.push_back({{"samples_us", us},
                  {"mean_us", r.mean_s * 1e6},
                  {"median_us", r.median_s * 1e6},
                  {"min_us", r.min_s * 1e6},
                  {"max_us", r.max_s * 1e6},
                  {"rel_diff", r.rel_diff}});
  }
  return {{"rounds", rs},
          {"kept", kept},
          {"latency_us", latency_s * 1e6},
          {"median_us", median_s * 1e6},
          {"stable", stable},
          {"clock", "device (neuron-profile total_time)"}};
}

}  // namespace accelopt::eval::nki
