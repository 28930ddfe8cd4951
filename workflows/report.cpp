#include "workflows/report.hpp"

#include <cmath>
#include <map>

namespace accelopt::workflows {

namespace {

json Pct(double v) { return v >= 0 ? json(v) : json(nullptr); }

struct Usage {
  int64_t calls = 0, failed_calls = 0, input_tokens = 0, output_tokens = 0, cost_nusd = 0;
  json ToJson() const {
    return {{"calls", calls},
            {"failed_calls", failed_calls},
            {"input_tokens", input_tokens},
            {"output_tokens", output_tokens},
            {"cost_usd", static_cast<double>(cost_nusd) / 1e9}};
  }
  void Add(const ActivityRecord& a) {
    ++calls;
    if (a.status == ActivityStatus::kFailed) ++failed_calls;
    const json u = a.completion.value("usage", json::object());
    input_tokens += u.value("input_tokens", int64_t{0});
    output_tokens += u.value("output_tokens", int64_t{0});
    cost_nusd += UsdToNanoRound(a.completion.value("cost_usd", 0.0));
  }
};

struct Best {
  bool have = false;
  std::string id, sha;
  int iteration = 0;
  double latency = 0, pct = -1;
  void Offer(const std::string& cid, const std::string& s, int it, double lat, double p) {
    if (have && !(lat < latency)) return;
    have = true;
    id = cid;
    sha = s;
    iteration = it;
    latency = lat;
    pct = p;
  }
};

json ProblemReport(const ProblemState& ps, double* baseline_pct, double* best_pct,
                   double* speedup) {
  json r = {{"id", ps.info.id},
            {"name", ps.info.name},
            {"status", ps.status},
            {"reason", ps.reason},
            {"iterations_started", ps.iterations.size()}};
  Best best;
  json baseline = nullptr;
  if (!ps.iterations.empty() && !ps.iterations[0].beam.empty() &&
      ps.iterations[0].beam[0].measured && ps.iterations[0].beam[0].measurement.correct) {
    const Measurement& m = ps.iterations[0].beam[0].measurement;
    baseline = {{"latency_us", m.latency_us}, {"percent_of_peak", Pct(m.percent_of_peak)}};
    best.Offer("baseline", ps.info.baseline_sha256, 0, m.latency_us, m.percent_of_peak);
  }
  int64_t proposed = 0, failed = 0, evaluated = 0, correct = 0;
  json by_iteration = json::array();
  for (const IterationState& it : ps.iterations) {
    for (const CandidateRecord& c : it.candidates) {
      if (!c.proposed) continue;
      ++proposed;
      if (!c.ok) ++failed;
      if (c.evaluated) ++evaluated;
      if (c.ok && c.evaluated && c.measurement.correct) {
        ++correct;
        if (!baseline.is_null()) {
          best.Offer(c.id, c.source_sha256, it.iteration, c.measurement.latency_us,
                     c.measurement.percent_of_peak);
        }
      }
    }
    by_iteration.push_back(best.have ? Pct(best.pct) : json(nullptr));
  }
  r["baseline"] = baseline;
  r["percent_of_peak_by_iteration"] = by_iteration;
  r["candidates"] = {
      {"proposed", proposed}, {"failed", failed}, {"evaluated", evaluated}, {"correct", correct}};
  if (best.have) {
    r["best"] = {{"candidate_id", best.id},
                 {"source_sha256", best.sha},
                 {"iteration", best.iteration},
                 {"latency_us", best.latency},
                 {"percent_of_peak", Pct(best.pct)}};
    const double base_latency = baseline["latency_us"].get<double>();
    r["speedup"] = base_latency / best.latency;
    *speedup = base_latency / best.latency;
    *baseline_pct = ps.iterations[0].beam[0].measurement.percent_of_peak;
    *best_pct = best.pct;
  } else {
    r["best"] = nullptr;
    r["speedup"] = nullptr;
  }
  return r;
}

}  // namespace

json BuildReport(const CampaignState& state) {
  json report = {{"campaign_id", state.campaign_id},
                 {"status", state.status},
                 {"reason", state.reason},
                 {"exhausted_resource", state.exhausted_resource}};
  json problems = json::array();
  double log_base = 0, log_best = 0, log_speedup = 0;
  int n_pct = 0, n_speedup = 0;
  for (const ProblemState& ps : state.problems) {
    double base_pct = -1, best_pct = -1, speedup = -1;
    problems.push_back(ProblemReport(ps, &base_pct, &best_pct, &speedup));
    if (speedup > 0) {
      log_speedup += std::log(speedup);
      ++n_speedup;
    }
    if (base_pct > 0 && best_pct > 0) {
      log_base += std::log(base_pct);
      log_best += std::log(best_pct);
      ++n_pct;
    }
  }
  report["problems"] = problems;
  report["geomean"] = {
      {"baseline_percent_of_peak", n_pct ? json(std::exp(log_base / n_pct)) : json(nullptr)},
      {"best_percent_of_peak", n_pct ? json(std::exp(log_best / n_pct)) : json(nullptr)},
      {"speedup", n_speedup ? json(std::exp(log_speedup / n_speedup)) : json(nullptr)},
      {"problems", n_speedup}};

  std::map<std::string, Usage> by_role, by_model;
  Usage total;
  int64_t evaluations = 0;
  for (const auto& [id, a] : state.activities) {
    if (a.status == ActivityStatus::kScheduled) continue;
    if (a.kind == ActivityKind::kEvaluation) {
      ++evaluations;
      continue;
    }
    const std::string model =
        a.payload.value("provider", "") + "/" + a.payload.value("model", "");
    by_role[a.role].Add(a);
    by_model[model].Add(a);
    total.Add(a);
  }
  json roles = json::object(), models = json::object();
  for (const auto& [k, u] : by_role) roles[k] = u.ToJson();
  for (const auto& [k, u] : by_model) models[k] = u.ToJson();
  report["usage"] = {
      {"by_role", roles}, {"by_model", models}, {"total", total.ToJson()},
      {"evaluations", evaluations}};
  report["budget"] = {{"spent", ToJson(state.budget.spent)},
                      {"reserved", ToJson(state.budget.reserved)}};
  return report;
}

}  // namespace accelopt::workflows
