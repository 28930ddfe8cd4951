// Beam selection: which kernels the next iteration starts from.
//
// A BeamPolicy is chosen by the spec's search mode. PaperBeamPolicy is the
// published rule (ALGORITHM.md): each (parent, plan) group is represented by
// its fastest correct sample; a failed group (no correct sample) ranks last
// and its parent's code stands in; a stable sort by latency (failed groups
// after every successful one, in group order) keeps the top B. No elitism,
// no de-duplication. Ties keep group order.
//
// Thread safety: policies are stateless and const.
#pragma once

#include <string>
#include <vector>

#include "workflows/groups.hpp"

namespace accelopt::workflows {

struct BeamPick {
  int group_index = 0;        // into the groups passed to Select
  bool standin = false;       // failed group: the parent's code stands in
  std::string origin;         // candidate id of the kept sample; parent beam id when standin
  std::string source_sha256;  // the kept code
  double latency_us = 0;      // the sample's latency; the parent's when standin
};

class BeamPolicy {
 public:
  virtual ~BeamPolicy() = default;
  // Picks at most `width` members, best first. Groups are given in a fixed
  // order (parent index, then plan index).
  virtual std::vector<BeamPick> Select(const std::vector<Group>& groups, int width) const = 0;
};

class PaperBeamPolicy : public BeamPolicy {
 public:
  std::vector<BeamPick> Select(const std::vector<Group>& groups, int width) const override;
};

}  // namespace accelopt::workflows
