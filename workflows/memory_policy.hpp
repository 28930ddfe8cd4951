// Optimization memory: which slow→fast pairs of an iteration are summarized
// into memory items, and which old items stay when new ones arrive.
//
// PaperMemoryPolicy is the published rule (ALGORITHM.md):
//  * per (parent, plan) group with a correct sample: if any sample beat the
//    parent (child latency < parent latency) keep the fastest, else keep the
//    slowest; child_speedup = parent latency / child latency;
//  * positives: child_speedup > positive_threshold, best first, at most
//    TopK/2 (integer division);
//  * negatives: child_speedup < 1/negative_threshold, worst first, filling up
//    to TopK items in all; a negative pair is written slow→fast with the
//    slower child as "slow" and the parent as "fast";
//  * the new items come grouped by beam member in beam order (parent_index),
//    each member's in selection order (its positives, then its negatives);
//  * new memory = the new items, then a random sample of the old items up to
//    ExpN (in drawn order, from the campaign's deterministic Rng).
// Sorting is stable, so ties keep group order. Failed groups give no pair.
//
// DefaultMemoryPolicy ("default" mode) is the same rule, noise-aware: a
// child beats its parent, and a pair is positive, only when it is faster
// beyond the noise of both (FasterBeyondNoise); a pair is negative only when
// the parent is faster than the child beyond noise. Eviction is by
// usefulness and age, not at random: old items are kept in the order
// (credit desc, iteration desc, current memory order) up to ExpN.
//
// Thread safety: policies are stateless and const.
#pragma once

#include <string>
#include <vector>

#include "base/json.hpp"
#include "workflows/campaign_request.hpp"
#include "workflows/groups.hpp"
#include "workflows/rng.hpp"

namespace accelopt::workflows {

inline constexpr const char kPositive[] = "positive";
inline constexpr const char kNegative[] = "negative";

struct MemoryPair {
  std::string kind;  // kPositive | kNegative
  int group_index = 0;
  std::string child_candidate_id;
  std::string parent_beam_id;
  std::string plan_id;
  std::string slow_id, slow_sha256;  // positive: the parent; negative: the child
  std::string fast_id, fast_sha256;  // positive: the child; negative: the parent
  double slow_latency_us = 0, fast_latency_us = 0;
  double speedup = 1;        // fast over slow (slow latency / fast latency), >= 1
  double child_speedup = 1;  // parent latency / child latency

  static Result<MemoryPair> FromJson(const json& j);  // kInvalidArgument on a wrong shape
};

// One item of memory: a summarized pair with where it came from.
struct MemoryItem {
  std::string id;    // "<campaign>/p<i>/it<n>/mem/m<j>"
  std::string kind;  // kPositive | kNegative
  std::string title;
  std::string description;
  std::string slow_snippet;
  std::string fast_snippet;
  bool no_optimization = false;  // the summarizer said "No optimization found"
  // Provenance.
  std::string problem;
  int iteration = 0;  // the iteration whose start created it
  std::string summarizer_activity;
  MemoryPair pair;
  // "default" mode: times a plan that used this item won (ExperiencesCredited).
  int credit = 0;
  int last_credited_iteration = -1;
  // The memory items the plan behind the pair's child named (its
  // used_experiences): what this item was derived from. Empty when unknown.
  std::vector<std::string> derived_from;

  static Result<MemoryItem> FromJson(const json& j);  // kInvalidArgument on a wrong shape
};

json ToJson(const MemoryPair& p);
json ToJson(const MemoryItem& m);

class MemoryPolicy {
 public:
  virtual ~MemoryPolicy() = default;
  // The pairs to summarize, in memory order.
  virtual std::vector<MemoryPair> SelectPairs(const std::vector<Group>& groups, const SearchParams& params) const = 0;
  // Indices of the old items that stay, in their new order, given that
  // `n_new` items are added in front.
  virtual std::vector<size_t> Retain(size_t n_old, size_t n_new, const SearchParams& params, Rng& rng) const = 0;
  // The same, seeing the old items (default: Retain(old.size(), ...)).
  virtual std::vector<size_t> RetainItems(const std::vector<MemoryItem>& old, size_t n_new, const SearchParams& params,
                                          Rng& rng) const {
    return Retain(old.size(), n_new, params, rng);
  }
};

class PaperMemoryPolicy : public MemoryPolicy {
 public:
  std::vector<MemoryPair> SelectPairs(const std::vector<Group>& groups, const SearchParams& params) const override;
  std::vector<size_t> Retain(size_t n_old, size_t n_new, const SearchParams& params, Rng& rng) const override;
};

class DefaultMemoryPolicy : public MemoryPolicy {
 public:
  std::vector<MemoryPair> SelectPairs(const std::vector<Group>& groups, const SearchParams& params) const override;
  // Without the items: the first ones (newest first in memory order).
  std::vector<size_t> Retain(size_t n_old, size_t n_new, const SearchParams& params, Rng& rng) const override;
  std::vector<size_t> RetainItems(const std::vector<MemoryItem>& old, size_t n_new, const SearchParams& params,
                                  Rng& rng) const override;
};

}  // namespace accelopt::workflows
