#include "workflows/report.hpp"

#include <cctype>
#include <cmath>
#include <map>

#include "workflows/activity_id.hpp"
#include "workflows/campaign.hpp"

namespace accelopt::workflows {

namespace {

json Pct(double v) { return v >= 0 ? json(v) : json(nullptr); }

struct Usage {
  int64_t calls = 0, failed_calls = 0, input_tokens = 0, output_tokens = 0, cost_nusd = 0;
  // Calls by where their cost figure came from (the completion's
  // cost_source; "usage" for events written before it existed).
  std::map<std::string, int64_t> cost_sources;
  json ToJson() const {
    json sources = json::object();
    for (const auto& [k, n] : cost_sources) sources[k] = n;
    return {{"calls", calls},
            {"failed_calls", failed_calls},
            {"input_tokens", input_tokens},
            {"output_tokens", output_tokens},
            {"cost_usd", static_cast<double>(cost_nusd) / 1e9},
            {"cost_sources", sources}};
  }
  void Add(const ActivityRecord& a) {
    ++calls;
    if (a.status == ActivityStatus::kFailed) ++failed_calls;
    const json src = a.completion.value("cost_source", json());
    ++cost_sources[src.is_string() ? src.get<std::string>() : "usage"];
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
  double latency = 0, pct = -1, spread = 0;
  void Offer(const std::string& cid, const std::string& s, int it, double lat, double p, double sp) {
    if (have && !(lat < latency)) return;
    have = true;
    id = cid;
    sha = s;
    iteration = it;
    latency = lat;
    pct = p;
    spread = sp;
  }
};

// "default" mode: the selected final best and its fresh re-measurement. A
// final best whose re-measurement failed is not reported at the latency it
// was selected with: the best stands back to the fastest member of the last
// beam whose own re-measurement passed (the baseline at worst).
void FinalBestReport(const FinalBest& f, const IterationState& last, Best* best, json* r) {
  const json& sel = f.selection;
  const double selected_latency = sel.at("latency_us").get<double>();
  json remeasured = nullptr;
  json within_noise = nullptr, confirmed = nullptr;
  double latency = selected_latency, pct = -1;
  if (f.measured) {
    const Measurement& m = f.measurement;
    remeasured = {{"activity_id", f.activity_id}, {"status", m.status},
                  {"correct", m.correct},         {"latency_us", m.correct ? json(m.latency_us) : json(nullptr)},
                  {"spread", m.spread},           {"reason", m.reason}};
    if (m.comparison.is_object()) {
      const json& c = m.comparison;
      remeasured["interleaved_with_baseline"] = {{"baseline_median_us", c.value("baseline_median_us", 0.0)},
                                                 {"speedup", c.value("speedup", 0.0)},
                                                 {"speedup_low", c.value("speedup_low", 0.0)},
                                                 {"speedup_high", c.value("speedup_high", 0.0)},
                                                 {"noisy", c.value("noisy", false)}};
    }
    if (m.correct) {
      latency = m.latency_us;
      pct = m.percent_of_peak;
      const json& parent = sel.at("parent");
      if (parent.is_object()) {
        within_noise = !FasterBeyondNoise(m.latency_us, m.spread, parent.at("latency_us").get<double>(),
                                          parent.at("spread").get<double>());
        confirmed = !within_noise.get<bool>();
      }
    } else {
      confirmed = false;
    }
  }
  json fallback = nullptr;
  const std::string origin = sel.at("origin").get<std::string>();
  if (f.measured && !f.measurement.correct) {
    const BeamMember* stand = nullptr;
    for (const BeamMember& m : last.beam) {
      if (!(m.measured && m.measurement.correct)) continue;
      if (!stand || m.measurement.latency_us < stand->measurement.latency_us) stand = &m;
    }
    const std::string why = "the final best failed its re-measurement: " + f.measurement.status +
                            (f.measurement.reason.empty() ? "" : ": " + f.measurement.reason);
    if (stand) {
      *best = Best{};
      best->Offer(stand->origin, stand->source_sha256,
                  stand->origin == "baseline" ? 0 : activity_id::IterationOf(stand->origin),
                  stand->measurement.latency_us, stand->measurement.percent_of_peak, stand->measurement.spread);
      fallback = {{"beam_id", stand->beam_id}, {"origin", stand->origin}, {"reason", why}};
    } else {
      fallback = {{"beam_id", nullptr}, {"origin", best->id}, {"reason", why}};  // the baseline stays
    }
  } else {
    best->have = true;
    best->id = origin;
    best->sha = f.source_sha256;
    best->iteration = origin == "baseline" ? 0 : activity_id::IterationOf(origin);
    best->latency = latency;
    best->pct = pct;
    best->spread = f.measured ? f.measurement.spread : sel.value("spread", 0.0);
  }
  (*r)["final"] = {{"fallback", fallback},
                   {"selected_latency_us", selected_latency},
                   {"selected_spread", sel.at("spread")},
                   {"beam_id", sel.at("beam_id")},
                   {"parent", sel.at("parent")},
                   {"remeasured", remeasured},
                   {"within_noise_of_parent", within_noise},
                   {"confirmed", confirmed}};
}

// "paper" mode reports the speedup as published: per iteration the best
// *child* (correct candidate of that iteration) against the original
// baseline, so it can be below 1; the headline is the unrounded value at the
// first iteration whose value rounded to 2 decimals is the maximum.
void PublishedSpeedup(const ProblemState& ps, double base_latency, json* r, double* speedup) {
  json by = json::array();
  double head = -1, head_rounded = -1;
  int head_iteration = -1;
  for (const IterationState& it : ps.iterations) {
    double fastest = 0;
    for (const CandidateRecord& c : it.candidates) {
      if (!(c.ok && c.evaluated && c.measurement.correct)) continue;
      if (fastest == 0 || c.measurement.latency_us < fastest) fastest = c.measurement.latency_us;
    }
    // Published: an iteration without a correct child is 0
    // (accelopt/plotting_utils.py:79-91 @47e29a7).
    const double v = fastest > 0 ? base_latency / fastest : 0.0;
    by.push_back(v);
    const double rounded = std::round(v * 100) / 100;
    if (rounded > head_rounded) {
      head_rounded = rounded;
      head = v;
      head_iteration = it.iteration;
    }
  }
  (*r)["published_speedup"] = {{"value", head >= 0 ? json(head) : json(nullptr)},
                               {"iteration", head_iteration >= 0 ? json(head_iteration) : json(nullptr)},
                               {"by_iteration", by}};
  if (head > 0) {
    (*r)["speedup"] = head;
    *speedup = head;
  }
}

json ProblemReport(const ProblemState& ps, bool default_mode, double* baseline_pct, double* best_pct, double* speedup) {
  json r = {{"id", ps.info.id},
            {"name", ps.info.name},
            {"status", ps.status},
            {"reason", ps.reason},
            {"iterations_started", ps.iterations.size()}};
  Best best;
  json baseline = nullptr;
  if (!ps.iterations.empty() && !ps.iterations[0].beam.empty() && ps.iterations[0].beam[0].measured &&
      ps.iterations[0].beam[0].measurement.correct) {
    const Measurement& m = ps.iterations[0].beam[0].measurement;
    baseline = {{"latency_us", m.latency_us}, {"percent_of_peak", Pct(m.percent_of_peak)}, {"spread", m.spread}};
    best.Offer("baseline", ps.info.baseline_sha256, 0, m.latency_us, m.percent_of_peak, m.spread);
  }
  int64_t proposed = 0, failed = 0, evaluated = 0, correct = 0, reused = 0, fixed = 0, fix_attempts = 0;
  json by_iteration = json::array();
  for (const IterationState& it : ps.iterations) {
    for (const CandidateRecord& c : it.candidates) {
      if (!c.proposed) continue;
      ++proposed;
      if (!c.ok) ++failed;
      if (c.evaluated) ++evaluated;
      if (c.evaluated && c.reused) ++reused;
      fix_attempts += c.attempt;
      if (c.attempt > 0 && c.ok && c.evaluated && c.measurement.correct) ++fixed;
      if (c.ok && c.evaluated && c.measurement.correct) {
        ++correct;
        if (!baseline.is_null()) {
          best.Offer(c.id, c.source_sha256, it.iteration, c.measurement.latency_us, c.measurement.percent_of_peak,
                     c.measurement.spread);
        }
      }
    }
    by_iteration.push_back(best.have ? Pct(best.pct) : json(nullptr));
  }
  r["baseline"] = baseline;
  r["percent_of_peak_by_iteration"] = by_iteration;
  r["candidates"] = {{"proposed", proposed}, {"failed", failed}, {"evaluated", evaluated}, {"correct", correct}};
  if (default_mode) {
    r["candidates"]["reused"] = reused;
    r["candidates"]["fix_attempts"] = fix_attempts;
    r["candidates"]["fixed"] = fixed;
    r["final"] = nullptr;
    if (ps.final_best.selected && !baseline.is_null()) {
      FinalBestReport(ps.final_best, ps.iterations.back(), &best, &r);
    }
  }
  r["improvement"] = nullptr;
  if (best.have) {
    const Measurement& base = ps.iterations[0].beam[0].measurement;
    if (best.id == "baseline") {
      // Nothing beat the baseline: the speedup is 1, not the noise between
      // two measurements of the same code.
      best.latency = base.latency_us;
      best.pct = base.percent_of_peak;
      best.spread = base.spread;
      r["improvement"] = kImprovementNone;
    } else {
      const json side = r.value("final", json()).is_object() && r["final"]["fallback"].is_null() &&
                                r["final"]["remeasured"].is_object()
                            ? r["final"]["remeasured"].value("interleaved_with_baseline", json())
                            : json();
      bool faster = side.is_object() ? side.value("speedup_low", 0.0) > 1.0
                                     : FasterBeyondNoise(best.latency, best.spread, base.latency_us, base.spread);
      r["improvement"] = faster ? kImprovementFaster : kImprovementWithinNoise;
    }
    r["best"] = {{"candidate_id", best.id},    {"source_sha256", best.sha}, {"iteration", best.iteration},
                 {"latency_us", best.latency}, {"spread", best.spread},     {"percent_of_peak", Pct(best.pct)}};
    const double base_latency = baseline["latency_us"].get<double>();
    // The headline: the final interleaved re-measurement against the
    // baseline when there is one (one number everywhere: get, list, best,
    // report, the dashboard), else the best's latency against the baseline's.
    const json side = best.id != "baseline" && r.value("final", json()).is_object() &&
                              r["final"]["fallback"].is_null() && r["final"]["remeasured"].is_object()
                          ? r["final"]["remeasured"].value("interleaved_with_baseline", json())
                          : json();
    double headline = best.id == "baseline" ? 1.0 : base_latency / best.latency;
    json low = nullptr, high = nullptr, noisy = nullptr;
    std::string source = best.id == "baseline" ? kSpeedupNoneBeatIt : kSpeedupSeparate;
    if (side.is_object() && side.value("speedup", 0.0) > 0) {
      headline = side.value("speedup", 0.0);
      low = side.value("speedup_low", 0.0);
      high = side.value("speedup_high", 0.0);
      noisy = side.value("noisy", false);
      source = kSpeedupInterleaved;
    }
    r["speedup"] = headline;
    r["speedup_low"] = low;
    r["speedup_high"] = high;
    r["speedup_noisy"] = noisy;
    r["speedup_source"] = source;
    // The geometric mean counts only speedups beyond noise; the others as 1.
    *speedup = r["improvement"] == kImprovementFaster ? headline : 1.0;
    *baseline_pct = base.percent_of_peak;
    *best_pct = best.pct;
  } else {
    r["best"] = nullptr;
    r["speedup"] = nullptr;
    r["speedup_low"] = nullptr;
    r["speedup_high"] = nullptr;
    r["speedup_noisy"] = nullptr;
    r["speedup_source"] = nullptr;
  }
  if (!default_mode && !baseline.is_null()) PublishedSpeedup(ps, baseline["latency_us"].get<double>(), &r, speedup);
  return r;
}

}  // namespace

json BuildReport(const CampaignState& state) {
  json report = {{"campaign_id", state.campaign_id},
                 {"status", state.status},
                 {"reason", state.reason},
                 {"exhausted_resource", state.exhausted_resource}};
  if (state.spec.mode != kModePaper) report["mode"] = state.spec.mode;
  if (state.stand_in_results > 0) {  // not measurements (campaign.hpp): the banner
    report["test_stand_in"] = StandInBanner(state);
    report["test_stand_in"]["results"] = state.stand_in_results;
  }
  json problems = json::array();
  double log_base = 0, log_best = 0, log_speedup = 0, published_log = 0;
  bool published_zero = false;
  int n_pct = 0, n_speedup = 0, n_published = 0;
  for (const ProblemState& ps : state.problems) {
    double base_pct = -1, best_pct = -1, speedup = -1;
    problems.push_back(ProblemReport(ps, state.spec.mode != kModePaper, &base_pct, &best_pct, &speedup));
    if (speedup > 0) {
      log_speedup += std::log(speedup);
      ++n_speedup;
    }
    if (const json& ps_json = problems.back();
        ps_json.contains("published_speedup") && ps_json["published_speedup"]["value"].is_number()) {
      const double v = ps_json["published_speedup"]["value"].get<double>();
      if (v > 0) {
        published_log += std::log(v);
      } else {
        published_zero = true;
      }
      ++n_published;
    }
    if (base_pct > 0 && best_pct > 0) {
      log_base += std::log(base_pct);
      log_best += std::log(best_pct);
      ++n_pct;
    }
  }
  report["problems"] = problems;
  report["geomean"] = {{"baseline_percent_of_peak", n_pct ? json(std::exp(log_base / n_pct)) : json(nullptr)},
                       {"best_percent_of_peak", n_pct ? json(std::exp(log_best / n_pct)) : json(nullptr)},
                       {"speedup", n_speedup ? json(std::exp(log_speedup / n_speedup)) : json(nullptr)},
                       {"problems", n_speedup}};
  if (state.spec.mode == kModePaper) {
    // The published mean: the geometric mean of the problems' values
    // (experiments/full_complete_local/plot_trace.py:120-122 @47e29a7,
    // scipy.stats.gmean), in which a problem with no correct child counts as
    // 0 (plot_trace.py:78-80 over plotting_utils.py:91), so one such problem
    // makes it 0, as gmean does; the geomean above counts it as 1.
    json value = nullptr;
    if (n_published) value = published_zero ? 0.0 : std::exp(published_log / n_published);
    report["published_geomean_speedup"] = {{"value", value}, {"problems", n_published}};
  }

  std::map<std::string, Usage> by_role, by_model;
  Usage total;
  int64_t evaluations = 0;
  for (const auto& [id, a] : state.activities) {
    if (a.status == ActivityStatus::kScheduled) continue;
    if (a.kind == ActivityKind::kEvaluation) {
      ++evaluations;
      continue;
    }
    // Memory snapshots are activities too, but no LLM call: counting them
    // here made the report's calls exceed budget.spent.llm_calls (what the
    // dashboard and `acceloptctl list` show) by one per iteration.
    if (a.kind != ActivityKind::kLlm) continue;
    const std::string model = a.payload.value("provider", "") + "/" + a.payload.value("model", "");
    by_role[a.role].Add(a);
    by_model[model].Add(a);
    total.Add(a);
  }
  json roles = json::object(), models = json::object();
  for (const auto& [k, u] : by_role) roles[k] = u.ToJson();
  for (const auto& [k, u] : by_model) models[k] = u.ToJson();
  report["usage"] = {{"by_role", roles}, {"by_model", models}, {"total", total.ToJson()}, {"evaluations", evaluations}};
  report["budget"] = {{"spent", ToJson(state.budget.spent)}, {"reserved", ToJson(state.budget.reserved)}};
  return report;
}

}  // namespace accelopt::workflows
