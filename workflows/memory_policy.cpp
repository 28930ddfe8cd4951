#include "workflows/memory_policy.hpp"

#include <algorithm>

namespace accelopt::workflows {

json ToJson(const MemoryPair& p) {
  return {{"kind", p.kind},
          {"group_index", p.group_index},
          {"child_candidate_id", p.child_candidate_id},
          {"parent_beam_id", p.parent_beam_id},
          {"plan_id", p.plan_id},
          {"slow_id", p.slow_id},
          {"slow_sha256", p.slow_sha256},
          {"fast_id", p.fast_id},
          {"fast_sha256", p.fast_sha256},
          {"slow_latency_us", p.slow_latency_us},
          {"fast_latency_us", p.fast_latency_us},
          {"speedup", p.speedup},
          {"child_speedup", p.child_speedup}};
}

Result<MemoryPair> MemoryPair::FromJson(const json& j) {
  MemoryPair p;
  ACCELOPT_RETURN_IF_ERROR(DecodeJsonFields("memory pair", [&] {
    p.kind = j.at("kind").get<std::string>();
    p.group_index = j.at("group_index").get<int>();
    p.child_candidate_id = j.at("child_candidate_id").get<std::string>();
    p.parent_beam_id = j.at("parent_beam_id").get<std::string>();
    p.plan_id = j.at("plan_id").get<std::string>();
    p.slow_id = j.at("slow_id").get<std::string>();
    p.slow_sha256 = j.at("slow_sha256").get<std::string>();
    p.fast_id = j.at("fast_id").get<std::string>();
    p.fast_sha256 = j.at("fast_sha256").get<std::string>();
    p.slow_latency_us = j.at("slow_latency_us").get<double>();
    p.fast_latency_us = j.at("fast_latency_us").get<double>();
    p.speedup = j.at("speedup").get<double>();
    p.child_speedup = j.at("child_speedup").get<double>();
  }));
  return p;
}

json ToJson(const MemoryItem& m) {
  json j = {{"id", m.id},
            {"kind", m.kind},
            {"title", m.title},
            {"description", m.description},
            {"slow_snippet", m.slow_snippet},
            {"fast_snippet", m.fast_snippet},
            {"no_optimization", m.no_optimization},
            {"problem", m.problem},
            {"iteration", m.iteration},
            {"summarizer_activity", m.summarizer_activity},
            {"pair", ToJson(m.pair)}};
  if (m.credit != 0 || m.last_credited_iteration >= 0) {
    j["credit"] = m.credit;
    j["last_credited_iteration"] = m.last_credited_iteration;
  }
  if (!m.derived_from.empty()) j["derived_from"] = m.derived_from;
  return j;
}

Result<MemoryItem> MemoryItem::FromJson(const json& j) {
  MemoryItem m;
  const json* pair = nullptr;
  ACCELOPT_RETURN_IF_ERROR(DecodeJsonFields("memory item", [&] {
    m.id = j.at("id").get<std::string>();
    m.kind = j.at("kind").get<std::string>();
    m.title = j.at("title").get<std::string>();
    m.description = j.at("description").get<std::string>();
    m.slow_snippet = j.at("slow_snippet").get<std::string>();
    m.fast_snippet = j.at("fast_snippet").get<std::string>();
    m.no_optimization = j.at("no_optimization").get<bool>();
    m.problem = j.at("problem").get<std::string>();
    m.iteration = j.at("iteration").get<int>();
    m.summarizer_activity = j.at("summarizer_activity").get<std::string>();
    pair = &j.at("pair");
    m.credit = j.value("credit", 0);
    m.last_credited_iteration = j.value("last_credited_iteration", -1);
    if (j.contains("derived_from")) m.derived_from = j.at("derived_from").get<std::vector<std::string>>();
  }));
  ACCELOPT_ASSIGN_OR_RETURN(m.pair, MemoryPair::FromJson(*pair));
  return m;
}

namespace {

std::vector<MemoryPair> SelectPairsImpl(const std::vector<Group>& groups, const SearchParams& params,
                                        bool noise_aware) {
  std::vector<MemoryPair> positives, negatives;
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    const Sample* fastest = g.Fastest();
    if (!fastest) continue;  // failed group: nothing to learn from
    // Published: a parent that failed its re-profile contributes no pairs,
    // and a group whose best is exactly the parent's latency (1.0x) none.
    if (!noise_aware && (g.parent_failed || fastest->latency_us == g.parent_latency_us)) continue;
    const bool beat_parent =
        noise_aware ? FasterBeyondNoise(fastest->latency_us, fastest->spread, g.parent_latency_us, g.parent_spread)
                    : fastest->latency_us < g.parent_latency_us;
    const Sample* kept = beat_parent ? fastest : g.Slowest();
    // Contention only makes a figure slower (groups.hpp, Sample::contended):
    // a clean child "faster" than a contended parent, or a contended child
    // "slower" than a clean parent, may be the host's doing: no lesson.
    // Figures timed alike, and the other mixes, stand.
    if (beat_parent ? (g.parent_contended && !kept->contended) : (kept->contended && !g.parent_contended)) continue;
    MemoryPair p;
    p.group_index = static_cast<int>(i);
    p.child_candidate_id = kept->candidate_id;
    p.parent_beam_id = g.parent_beam_id;
    p.plan_id = g.plan_id;
    p.child_speedup = g.parent_latency_us / kept->latency_us;
    if (p.child_speedup > params.positive_threshold && (!noise_aware || beat_parent)) {
      p.kind = kPositive;
      p.slow_id = g.parent_beam_id;
      p.slow_sha256 = g.parent_source_sha256;
      p.slow_latency_us = g.parent_latency_us;
      p.fast_id = kept->candidate_id;
      p.fast_sha256 = kept->source_sha256;
      p.fast_latency_us = kept->latency_us;
      p.speedup = p.child_speedup;
      positives.push_back(std::move(p));
    } else if (p.child_speedup < 1.0 / params.negative_threshold &&
               (!noise_aware ||
                FasterBeyondNoise(g.parent_latency_us, g.parent_spread, kept->latency_us, kept->spread))) {
      p.kind = kNegative;
      p.slow_id = kept->candidate_id;
      p.slow_sha256 = kept->source_sha256;
      p.slow_latency_us = kept->latency_us;
      p.fast_id = g.parent_beam_id;
      p.fast_sha256 = g.parent_source_sha256;
      p.fast_latency_us = g.parent_latency_us;
      p.speedup = 1.0 / p.child_speedup;
      negatives.push_back(std::move(p));
    }
  }
  std::stable_sort(positives.begin(), positives.end(),
                   [](const MemoryPair& a, const MemoryPair& b) { return a.child_speedup > b.child_speedup; });
  std::stable_sort(negatives.begin(), negatives.end(),
                   [](const MemoryPair& a, const MemoryPair& b) { return a.child_speedup < b.child_speedup; });
  const size_t top_k = static_cast<size_t>(std::max(params.TopK, 0));
  std::vector<MemoryPair> out;
  for (auto& p : positives) {
    if (out.size() >= top_k / 2) break;
    out.push_back(std::move(p));
  }
  for (auto& p : negatives) {
    if (out.size() >= top_k) break;
    out.push_back(std::move(p));
  }
  // Published (scripts/rewrites_selection.py:205-238 @47e29a7): the selected
  // plans are grouped by beam member (service name), members in beam order,
  // and within one member they keep selection order (positives best first,
  // then negatives worst first), not plan order.
  if (!noise_aware) {
    std::vector<int> parent_of(groups.size());
    for (size_t i = 0; i < groups.size(); ++i) parent_of[i] = groups[i].parent_index;
    std::stable_sort(out.begin(), out.end(), [&](const MemoryPair& a, const MemoryPair& b) {
      return parent_of[a.group_index] < parent_of[b.group_index];
    });
  }
  return out;
}

}  // namespace

std::vector<MemoryPair> PaperMemoryPolicy::SelectPairs(const std::vector<Group>& groups,
                                                       const SearchParams& params) const {
  return SelectPairsImpl(groups, params, /*noise_aware=*/false);
}

std::vector<MemoryPair> DefaultMemoryPolicy::SelectPairs(const std::vector<Group>& groups,
                                                         const SearchParams& params) const {
  return SelectPairsImpl(groups, params, /*noise_aware=*/true);
}

std::vector<size_t> DefaultMemoryPolicy::Retain(size_t n_old, size_t n_new, const SearchParams& params, Rng&) const {
  const size_t cap = static_cast<size_t>(std::max(params.ExpN, 0));
  const size_t room = n_new >= cap ? 0 : cap - n_new;
  std::vector<size_t> out;
  for (size_t i = 0; i < n_old && out.size() < room; ++i) out.push_back(i);
  return out;
}

std::vector<size_t> DefaultMemoryPolicy::RetainItems(const std::vector<MemoryItem>& old, size_t n_new,
                                                     const SearchParams& params, Rng&) const {
  const size_t cap = static_cast<size_t>(std::max(params.ExpN, 0));
  const size_t room = n_new >= cap ? 0 : cap - n_new;
  std::vector<size_t> order(old.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (old[a].credit != old[b].credit) return old[a].credit > old[b].credit;
    return old[a].iteration > old[b].iteration;
  });
  if (order.size() > room) order.resize(room);
  return order;
}

std::vector<size_t> PaperMemoryPolicy::Retain(size_t n_old, size_t n_new, const SearchParams& params, Rng& rng) const {
  const size_t cap = static_cast<size_t>(std::max(params.ExpN, 0));
  const size_t room = n_new >= cap ? 0 : cap - n_new;
  return rng.Sample(n_old, room);
}

}  // namespace accelopt::workflows
