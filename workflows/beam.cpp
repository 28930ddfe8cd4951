#include "workflows/beam.hpp"

#include <algorithm>

namespace accelopt::workflows {

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

std::vector<BeamPick> PaperBeamPolicy::Select(const std::vector<Group>& groups,
                                              int width) const {
  std::vector<BeamPick> picks;
  picks.reserve(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    BeamPick p;
    p.group_index = static_cast<int>(i);
    if (const Sample* s = g.Fastest()) {
      p.origin = s->candidate_id;
      p.source_sha256 = s->source_sha256;
      p.latency_us = s->latency_us;
    } else {
      p.standin = true;
      p.origin = g.parent_beam_id;
      p.source_sha256 = g.parent_source_sha256;
      p.latency_us = g.parent_latency_us;
    }
    picks.push_back(std::move(p));
  }
  // Failed groups rank last whatever their parent's latency.
  std::stable_sort(picks.begin(), picks.end(), [](const BeamPick& a, const BeamPick& b) {
    if (a.standin != b.standin) return !a.standin;
    if (a.standin) return false;
    return a.latency_us < b.latency_us;
  });
  if (width >= 0 && picks.size() > static_cast<size_t>(width)) picks.resize(width);
  return picks;
}

}  // namespace accelopt::workflows
