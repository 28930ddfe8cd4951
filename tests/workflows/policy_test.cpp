// Beam selection and memory rules on hand-built cases, against the published
// rules (ALGORITHM.md): failed groups, ties, thresholds, capacity, back-fill.
#include <boost/test/unit_test.hpp>

#include <set>

#include "workflows/beam.hpp"
#include "workflows/memory_policy.hpp"

namespace accelopt::workflows {
namespace {

Sample Ok(const std::string& id, double latency) { return {id, "sha-" + id, true, latency}; }
// Evaluated and not correct (compile error, wrong result, timeout).
Sample Failed(const std::string& id) {
  Sample s{id, "sha-" + id, false, 0};
  s.evaluated = true;
  return s;
}
// The executor gave no code block: nothing was evaluated.
Sample NoCode(const std::string& id) { return {id, "", false, 0}; }

Group G(int parent, double parent_latency, int plan, std::vector<Sample> samples) {
  Group g;
  g.parent_index = parent;
  g.parent_beam_id = "beam" + std::to_string(parent);
  g.parent_source_sha256 = "sha-beam" + std::to_string(parent);
  g.parent_latency_us = parent_latency;
  g.plan_index = plan;
  g.plan_id = "plan" + std::to_string(parent) + "." + std::to_string(plan);
  g.samples = std::move(samples);
  return g;
}

std::vector<std::string> Origins(const std::vector<BeamPick>& picks) {
  std::vector<std::string> out;
  for (const auto& p : picks) out.push_back(p.origin);
  return out;
}

BOOST_AUTO_TEST_CASE(beam_keeps_fastest_correct_sample_per_group_top_b) {
  PaperBeamPolicy policy;
  std::vector<Group> groups = {
      G(0, 100, 0, {Ok("a0", 90), Ok("a1", 80)}),  // rep a1 (80)
      G(0, 100, 1, {Failed("b0"), Ok("b1", 60)}),  // rep b1 (60); failed sample ignored
      G(1, 120, 0, {Ok("c0", 70), Ok("c1", 75)}),  // rep c0 (70)
  };
  auto picks = policy.Select(groups, 2);
  BOOST_TEST(Origins(picks) == (std::vector<std::string>{"b1", "c0"}));
  BOOST_TEST(picks[0].latency_us == 60);
  BOOST_TEST(picks[0].source_sha256 == "sha-b1");
  BOOST_TEST(picks[0].group_index == 1);
  BOOST_TEST(!picks[0].standin);
  // Width larger than the groups: all of them, best first.
  BOOST_TEST(Origins(policy.Select(groups, 10)) == (std::vector<std::string>{"b1", "c0", "a1"}));
}

BOOST_AUTO_TEST_CASE(failed_groups_rank_last_with_parent_code_standing_in) {
  PaperBeamPolicy policy;
  std::vector<Group> groups = {
      G(0, 10, 0, {Failed("a0"), Failed("a1")}),  // parent is very fast, still last
      G(1, 500, 0, {Ok("b0", 400)}),
      G(2, 20, 0, {}),  // planner failed: no samples
      G(3, 300, 0, {Ok("d0", 900)}),
      G(4, 30, 0, {NoCode("e0"), NoCode("e1")}),  // no code block: nothing evaluated
      G(5, 40, 0, {Failed("f0")}),
  };
  auto picks = policy.Select(groups, 6);
  // Published: groups with no evaluated sample ("No implementation found")
  // are dropped; evaluated-but-failed groups stand in with the parent's code.
  BOOST_TEST(Origins(picks) == (std::vector<std::string>{"b0", "d0", "beam0", "beam5"}));
  BOOST_REQUIRE(picks.size() == 4u);
  BOOST_TEST(picks[2].standin);
  BOOST_TEST(picks[2].source_sha256 == "sha-beam0");
  BOOST_TEST(picks[2].latency_us == 10);
  BOOST_TEST(picks[3].standin);
  // Only B kept: the failed groups drop out first.
  BOOST_TEST(Origins(policy.Select(groups, 2)) == (std::vector<std::string>{"b0", "d0"}));
  // Fewer successes than B: failed groups fill in group order.
  BOOST_TEST(Origins(policy.Select(groups, 3)) == (std::vector<std::string>{"b0", "d0", "beam0"}));
  // Nothing evaluated anywhere: the parents stand in rather than an empty beam.
  std::vector<Group> none = {G(0, 10, 0, {}), G(1, 20, 0, {NoCode("x")})};
  BOOST_TEST(Origins(policy.Select(none, 2)) == (std::vector<std::string>{"beam0", "beam1"}));
}

// Published: a parent that failed its re-profile ranks all its children as
// failures and contributes no memory pairs.
BOOST_AUTO_TEST_CASE(a_parent_that_failed_its_reprofile_ranks_its_children_as_failures) {
  std::vector<Group> groups = {G(0, 100, 0, {Ok("a0", 50)}), G(1, 200, 0, {Ok("b0", 150)})};
  groups[0].parent_failed = true;
  auto picks = PaperBeamPolicy().Select(groups, 2);
  BOOST_TEST(Origins(picks) == (std::vector<std::string>{"b0", "beam0"}));
  SearchParams sp;
  sp.TopK = 8;
  for (const MemoryPair& m : PaperMemoryPolicy().SelectPairs(groups, sp)) BOOST_TEST(m.group_index != 0);
}

// Published: a group whose best sample is exactly the parent's latency
// (1.0x) yields no memory pair (neither beat nor all slower).
BOOST_AUTO_TEST_CASE(a_group_whose_best_is_exactly_one_yields_no_pair) {
  SearchParams sp;
  sp.TopK = 8;
  sp.negative_threshold = 1.0001;
  std::vector<Group> groups = {G(0, 100, 0, {Ok("a0", 100), Ok("a1", 300)})};
  BOOST_TEST(PaperMemoryPolicy().SelectPairs(groups, sp).empty());
  groups[0].samples[0].latency_us = 100.5;  // now all slower: the worst is a negative pair
  auto pairs = PaperMemoryPolicy().SelectPairs(groups, sp);
  BOOST_REQUIRE(pairs.size() == 1u);
  BOOST_TEST(pairs[0].child_candidate_id == "a1");
}

// Published: new items come grouped by beam member in beam order, not as
// one best-first list.
BOOST_AUTO_TEST_CASE(new_pairs_keep_beam_order) {
  SearchParams sp;
  sp.TopK = 8;
  std::vector<Group> groups = {
      G(0, 100, 0, {Ok("a0", 90)}),   // 1.11x
      G(0, 100, 1, {Ok("b0", 300)}),  // negative
      G(1, 100, 0, {Ok("c0", 50)}),   // 2x: the best, yet after beam member 0's
  };
  std::vector<std::string> order;
  for (const MemoryPair& m : PaperMemoryPolicy().SelectPairs(groups, sp)) order.push_back(m.child_candidate_id);
  BOOST_TEST(order == (std::vector<std::string>{"a0", "b0", "c0"}));
}

BOOST_AUTO_TEST_CASE(beam_ties_keep_group_order_no_elitism_no_dedup) {
  PaperBeamPolicy policy;
  std::vector<Group> groups = {
      G(0, 50, 0, {Ok("a0", 70)}),
      G(0, 50, 1, {Ok("b0", 70)}),  // tie with a0: a0 first
      G(0, 50, 2, {Ok("c0", 60)}),
  };
  groups[1].samples[0].source_sha256 = "sha-a0";  // identical code, kept twice
  auto picks = policy.Select(groups, 3);
  BOOST_TEST(Origins(picks) == (std::vector<std::string>{"c0", "a0", "b0"}));
  BOOST_TEST(picks[1].source_sha256 == picks[2].source_sha256);
  // Every child is slower than the parent (50), and the parent is gone.
  for (const auto& p : picks) BOOST_TEST(p.origin != "beam0");
  // Ties inside a group: the earlier sample represents it.
  std::vector<Group> tie = {G(0, 50, 0, {Ok("x0", 40), Ok("x1", 40)})};
  BOOST_TEST(policy.Select(tie, 1)[0].origin == "x0");
}

BOOST_AUTO_TEST_CASE(memory_keeps_best_if_any_beat_parent_else_worst) {
  PaperMemoryPolicy policy;
  SearchParams params;  // paper thresholds 1.04 / 1.15, TopK 8
  std::vector<Group> groups = {
      G(0, 100, 0, {Ok("a0", 130), Ok("a1", 50)}),   // a1 beat the parent: keep a1 (2.0x)
      G(0, 100, 1, {Ok("b0", 110), Ok("b1", 150)}),  // none beat: keep worst b1 (0.667x)
      G(0, 100, 2, {Ok("c0", 98), Ok("c1", 200)}),   // c0 beat (1.02x): kept, but too small
      G(0, 100, 3, {Failed("d0"), Failed("d1")}),    // failed: no pair
  };
  auto pairs = policy.SelectPairs(groups, params);
  BOOST_REQUIRE_EQUAL(pairs.size(), 2u);
  BOOST_TEST(pairs[0].kind == kPositive);
  BOOST_TEST(pairs[0].child_candidate_id == "a1");
  BOOST_TEST(pairs[0].slow_id == "beam0");  // positive: parent slow, child fast
  BOOST_TEST(pairs[0].fast_id == "a1");
  BOOST_TEST(pairs[0].speedup == 2.0);
  BOOST_TEST(pairs[1].kind == kNegative);
  BOOST_TEST(pairs[1].child_candidate_id == "b1");
  BOOST_TEST(pairs[1].slow_id == "b1");  // negative: slower child slow, parent fast
  BOOST_TEST(pairs[1].slow_sha256 == "sha-b1");
  BOOST_TEST(pairs[1].fast_id == "beam0");
  BOOST_TEST(pairs[1].fast_sha256 == "sha-beam0");
  BOOST_TEST(pairs[1].speedup == 1.5, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(pairs[1].child_speedup == 100.0 / 150.0, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(memory_thresholds_are_strict) {
  PaperMemoryPolicy policy;
  SearchParams params;
  // child_speedup exactly 1.04 is not positive; exactly 1/1.15 is not negative.
  std::vector<Group> groups = {
      G(0, 104, 0, {Ok("a0", 100)}),                 // 1.04
      G(0, 100, 1, {Ok("b0", 100 / (1.0 / 1.15))}),  // exactly 1/1.15 in doubles
      G(0, 104.1, 2, {Ok("c0", 100)}),               // 1.041 > 1.04
      G(0, 100, 3, {Ok("d0", 115.1)}),               // < 1/1.15
  };
  BOOST_REQUIRE(104.0 / 100.0 == params.positive_threshold);
  BOOST_REQUIRE(100 / groups[1].samples[0].latency_us == 1.0 / params.negative_threshold);
  auto pairs = policy.SelectPairs(groups, params);
  std::vector<std::string> ids;
  for (const auto& p : pairs) ids.push_back(p.child_candidate_id);
  BOOST_TEST(ids == (std::vector<std::string>{"c0", "d0"}));
}

BOOST_AUTO_TEST_CASE(memory_caps_positives_at_half_topk_and_fills_with_negatives) {
  PaperMemoryPolicy policy;
  SearchParams params;
  params.TopK = 5;  // at most 2 positives (5/2), 5 items in all
  std::vector<Group> groups = {
      G(0, 100, 0, {Ok("p1", 80)}),   // 1.25
      G(0, 100, 1, {Ok("p2", 50)}),   // 2.0
      G(0, 100, 2, {Ok("p3", 40)}),   // 2.5
      G(0, 100, 3, {Ok("p4", 50)}),   // 2.0, ties p2: after it
      G(0, 100, 4, {Ok("n1", 200)}),  // 0.5
      G(0, 100, 5, {Ok("n2", 400)}),  // 0.25
      G(0, 100, 6, {Ok("n3", 200)}),  // 0.5, ties n1: after it
      G(0, 100, 7, {Ok("n4", 125)}),  // 0.8
      G(0, 100, 8, {Ok("n5", 120)}),  // 0.833
  };
  auto pairs = policy.SelectPairs(groups, params);
  std::vector<std::string> ids;
  for (const auto& p : pairs) ids.push_back(p.child_candidate_id);
  // Chosen best-first (p3, p2; n2, n1, n3), and in that order within one
  // beam member (published scripts/rewrites_selection.py:205-238).
  BOOST_TEST(ids == (std::vector<std::string>{"p3", "p2", "n2", "n1", "n3"}));
  // Few positives: negatives fill the rest of TopK.
  params.TopK = 4;
  std::vector<Group> few = {G(0, 100, 0, {Ok("p", 50)}), G(0, 100, 1, {Ok("n1", 200)}), G(0, 100, 2, {Ok("n2", 300)}),
                            G(0, 100, 3, {Ok("n3", 400)}), G(0, 100, 4, {Ok("n4", 500)})};
  ids.clear();
  for (const auto& p : policy.SelectPairs(few, params)) ids.push_back(p.child_candidate_id);
  BOOST_TEST(ids == (std::vector<std::string>{"p", "n4", "n3", "n2"}));
  // TopK = 1: no positive fits (1/2 = 0), one negative.
  params.TopK = 1;
  ids.clear();
  for (const auto& p : policy.SelectPairs(few, params)) ids.push_back(p.child_candidate_id);
  BOOST_TEST(ids == (std::vector<std::string>{"n4"}));
}

BOOST_AUTO_TEST_CASE(memory_backfill_is_a_deterministic_random_sample_up_to_capacity) {
  PaperMemoryPolicy policy;
  SearchParams params;
  params.ExpN = 8;
  Rng a(42, "c/p0/it3/memory"), b(42, "c/p0/it3/memory");
  auto kept = policy.Retain(10, 3, params, a);
  BOOST_TEST(kept.size() == 5u);  // 3 new + 5 old = ExpN
  std::set<size_t> distinct(kept.begin(), kept.end());
  BOOST_TEST(distinct.size() == kept.size());
  for (size_t i : kept) BOOST_TEST(i < 10u);
  BOOST_TEST(policy.Retain(10, 3, params, b) == kept);  // same seed and key: same draw
  // Other keys draw other samples (at least one of several differs).
  bool differs = false;
  for (int it = 0; it < 5 && !differs; ++it) {
    Rng c(42, "c/p0/it" + std::to_string(10 + it) + "/memory");
    differs = policy.Retain(10, 3, params, c) != kept;
  }
  BOOST_TEST(differs);
  // Room for everything: all old items stay.
  Rng d(1, "k");
  auto all = policy.Retain(2, 3, params, d);
  BOOST_TEST(std::set<size_t>(all.begin(), all.end()) == (std::set<size_t>{0, 1}));
  // New items fill the capacity: nothing old stays.
  Rng e(1, "k");
  BOOST_TEST(policy.Retain(5, 8, params, e).empty());
  // Every old item is drawn about equally often (a fair sample).
  std::vector<int> hits(10, 0);
  for (int i = 0; i < 2000; ++i) {
    Rng r(7, "draw" + std::to_string(i));
    for (size_t k : policy.Retain(10, 3, params, r)) ++hits[k];
  }
  for (int h : hits) BOOST_TEST((h > 850 && h < 1150));  // expected 1000
}

}  // namespace
}  // namespace accelopt::workflows
