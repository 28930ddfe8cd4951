// Beam selection: which kernels the next iteration starts from.
//
// A BeamPolicy is chosen by the spec's search mode. PaperBeamPolicy is the
// published rule (ALGORITHM.md): each (parent, plan) group is represented by
// its fastest correct sample; a failed group (samples evaluated, none
// correct; or a parent that failed its re-profile) ranks last and its
// parent's code stands in; a group with no evaluated sample at all (planner
// failed, no code block) is dropped (unless every group is); a stable sort
// by latency (failed groups after every successful one, in group order)
// keeps the top B. No elitism, no de-duplication. Ties keep group order.
//
// DefaultBeamPolicy ("default" mode) keeps what is known to be good and
// drops what only looks different:
//  * the pool is every parent (carried over with its re-measured latency)
//    and each group's fastest correct sample; a failed group adds nothing;
//    a parent whose re-measurement failed (Group::parent_failed) is left
//    out (it cannot be carried at an unconfirmed latency), unless nothing
//    else is left;
//  * a child that is not faster than its parent beyond the noise of both
//    (FasterBeyondNoise) ranks after every parent and every improving child;
//  * the pool is sorted stably by (that rank, latency) and identical code
//    (same normalized hash, else same source hash) is kept once, first wins;
//  * elitism: the fastest parent (the best kernel so far) stays unless a pick
//    is faster than it beyond noise; it replaces the last pick otherwise.
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
  bool contended = false;     // latency_us was timed contended (groups.hpp): ranked after every clean pick
  // "default" mode:
  bool carried = false;  // a parent carried over (origin = its beam id)
  double spread = 0;     // relative noise of latency_us
  std::string normalized_sha256;
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

namespace accelopt::workflows {

class DefaultBeamPolicy : public BeamPolicy {
 public:
  std::vector<BeamPick> Select(const std::vector<Group>& groups, int width) const override;
};

}  // namespace accelopt::workflows
