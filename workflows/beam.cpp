#include "workflows/beam.hpp"

#include <algorithm>

namespace accelopt::workflows {

bool FasterBeyondNoise(double a, double a_spread, double b, double b_spread) {
  return a * (1 + std::max(a_spread, 0.0)) < b * (1 - std::max(b_spread, 0.0));
}

const Sample* Group::Fastest() const {
  const Sample* best = nullptr;
  for (const auto& s : samples) {
    if (s.correct && (!best || s.latency_us < best->latency_us)) best = &s;
  }
  return best;
}

const Sample* Group::Slowest() const {
  const Sample* worst = nullptr;
  for (const auto& s : samples) {
    if (s.correct && (!worst || s.latency_us > worst->latency_us)) worst = &s;
  }
  return worst;
}

std::vector<BeamPick> PaperBeamPolicy::Select(const std::vector<Group>& groups, int width) const {
  std::vector<BeamPick> picks;
  picks.reserve(groups.size());
  // Published: a group with no evaluated sample at all (the planner call
  // failed, no code block, skipped: "No implementation found") is dropped,
  // not a stand-in; unless every group is (an empty beam ends the search).
  bool any_evaluated = false;
  for (const Group& g : groups) {
    for (const Sample& s : g.samples) any_evaluated = any_evaluated || s.evaluated || s.correct;
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    bool evaluated = false;
    for (const Sample& s : g.samples) evaluated = evaluated || s.evaluated || s.correct;
    if (!evaluated && any_evaluated) continue;
    BeamPick p;
    p.group_index = static_cast<int>(i);
    // A parent that failed its re-profile: all its children rank as failures.
    const Sample* s = g.parent_failed ? nullptr : g.Fastest();
    if (s) {
      p.contended = s->contended;
      p.origin = s->candidate_id;
      p.source_sha256 = s->source_sha256;
      p.latency_us = s->latency_us;
    } else {
      p.standin = true;
      p.contended = g.parent_contended;
      p.origin = g.parent_beam_id;
      p.source_sha256 = g.parent_source_sha256;
      p.latency_us = g.parent_latency_us;
    }
    picks.push_back(std::move(p));
  }
  // Failed groups rank last whatever their parent's latency; a contended
  // figure is never ranked against a clean one (clean first).
  std::stable_sort(picks.begin(), picks.end(), [](const BeamPick& a, const BeamPick& b) {
    if (a.standin != b.standin) return !a.standin;
    if (a.standin) return false;
    if (a.contended != b.contended) return !a.contended;
    return a.latency_us < b.latency_us;
  });
  if (width >= 0 && picks.size() > static_cast<size_t>(width)) picks.resize(width);
  return picks;
}

namespace {

struct Ranked {
  BeamPick pick;
  int rank = 0;  // 0: parent or improving child; 1: child within noise of its parent
};

std::string CodeKey(const std::string& normalized, const std::string& source) {
  return normalized.empty() ? "src:" + source : "norm:" + normalized;
}

}  // namespace

std::vector<BeamPick> DefaultBeamPolicy::Select(const std::vector<Group>& groups, int width) const {
  std::vector<Ranked> pool;
  std::vector<int> seen_parent;
  int elite = -1;  // index into pool
  // A parent whose re-measurement failed is neither carried nor the elite,
  // unless nothing else is left (an empty beam would end the search).
  bool any_usable = false;
  for (const Group& g : groups) any_usable = any_usable || !g.parent_failed || g.Fastest();
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    if (g.parent_failed && any_usable) continue;
    if (std::find(seen_parent.begin(), seen_parent.end(), g.parent_index) == seen_parent.end()) {
      seen_parent.push_back(g.parent_index);
      Ranked r;
      r.pick.group_index = static_cast<int>(i);
      r.pick.carried = true;
      r.pick.origin = g.parent_beam_id;
      r.pick.source_sha256 = g.parent_source_sha256;
      r.pick.normalized_sha256 = g.parent_normalized_sha256;
      r.pick.latency_us = g.parent_latency_us;
      r.pick.spread = g.parent_spread;
      r.pick.contended = g.parent_contended;
      if (g.parent_latency_us > 0 &&
          (elite < 0 || (pool[elite].pick.contended && !g.parent_contended) ||
           (pool[elite].pick.contended == g.parent_contended && g.parent_latency_us < pool[elite].pick.latency_us))) {
        elite = static_cast<int>(pool.size());
      }
      pool.push_back(std::move(r));
    }
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    const Sample* s = g.Fastest();
    if (!s) continue;
    Ranked r;
    r.pick.group_index = static_cast<int>(i);
    r.pick.origin = s->candidate_id;
    r.pick.source_sha256 = s->source_sha256;
    r.pick.normalized_sha256 = s->normalized_sha256;
    r.pick.latency_us = s->latency_us;
    r.pick.spread = s->spread;
    r.pick.contended = s->contended;
    // Contention only makes a figure slower: a child faster beyond noise
    // than its parent improved on it whatever the child's contention, unless
    // the parent's figure was contended and the child's clean (then it is
    // not known to be within the parent's noise: rank 0 too, and ranked
    // before the parent by the clean-first order below).
    r.rank = (g.parent_contended && !s->contended) ||
                     FasterBeyondNoise(s->latency_us, s->spread, g.parent_latency_us, g.parent_spread)
                 ? 0
                 : 1;
    pool.push_back(std::move(r));
  }
  std::string elite_key;
  BeamPick elite_pick;
  if (elite >= 0) {
    elite_pick = pool[elite].pick;
    elite_key = CodeKey(elite_pick.normalized_sha256, elite_pick.source_sha256);
  }
  std::stable_sort(pool.begin(), pool.end(), [](const Ranked& a, const Ranked& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.pick.contended != b.pick.contended) return !a.pick.contended;  // never ranked against a clean one
    return a.pick.latency_us < b.pick.latency_us;
  });
  std::vector<BeamPick> picks;
  std::vector<std::string> keys;
  for (Ranked& r : pool) {
    if (width >= 0 && picks.size() >= static_cast<size_t>(width)) break;
    std::string key = CodeKey(r.pick.normalized_sha256, r.pick.source_sha256);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    keys.push_back(std::move(key));
    picks.push_back(std::move(r.pick));
  }
  if (elite >= 0 && width > 0 && std::find(keys.begin(), keys.end(), elite_key) == keys.end()) {
    bool superseded = false;
    for (const BeamPick& p : picks) {
      superseded = superseded || ((p.contended || !elite_pick.contended) &&
                                  FasterBeyondNoise(p.latency_us, p.spread, elite_pick.latency_us, elite_pick.spread));
    }
    if (!superseded) {
      // Every pick is a parent or an improving child at least as fast as
      // the elite (else the elite would be among them): it goes last.
      if (picks.size() >= static_cast<size_t>(width)) picks.pop_back();
      picks.push_back(elite_pick);
    }
  }
  return picks;
}

}  // namespace accelopt::workflows
