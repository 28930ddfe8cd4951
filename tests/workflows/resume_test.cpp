// Resume: the campaign is stopped after every single event boundary, folded
// back from that prefix of its log, and driven on (pending activities re-run
// first, completions in another order). It must end in the same state as the
// uninterrupted run, and no LLM call whose reply was in the prefix may be
// requested again.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <iterator>
#include <functional>
#include <map>
#include <set>

#include "workflows/report.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

// What one sorted event list has that the other lacks, for the message.
std::string Difference(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  std::vector<std::string> extra, missing;
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
  std::string out;
  for (const auto& x : extra) out += "\n  extra: " + x.substr(0, 400);
  for (const auto& x : missing) out += "\n  missing: " + x.substr(0, 400);
  return out;
}

// Runs `spec` with `make_script` uninterrupted, then stopped at every event
// boundary and resumed.
void CheckResumeAtEveryBoundary(const CampaignSpec& spec, const std::function<Script(const World&)>& make_script) {
  const World world = MakeWorld();
  const auto MakeScript = make_script;
  // Keep a few activities in flight at every cut, as a real runtime would.
  Sim full(spec, MakeScript(world), /*order_seed=*/11, /*max_in_flight=*/4);
  REQUIRE_OK(full.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(full.RunToEnd());
  BOOST_REQUIRE(full.state().status == kStatusCompleted);
  const json want_report = BuildReport(full.state());
  const std::vector<std::string> want_events = Canonical(full.log());
  const size_t n = full.log().size();
  BOOST_TEST_MESSAGE("uninterrupted run: " << n << " events");

  size_t resumed_with_pending = 0;
  for (size_t cut = 1; cut <= n; ++cut) {
    Sim resumed(spec, MakeScript(world), /*order_seed=*/1000 + cut, /*max_in_flight=*/3);
    REQUIRE_OK(resumed.ResumeFrom(full, cut));
    // Activities whose LLM reply is already in the prefix.
    std::set<std::string> answered;
    size_t pending = 0;
    for (size_t i = 0; i < cut; ++i) {
      const Event& e = full.log()[i];
      if (e.type == event_type::kLlmCallCompleted || e.type == event_type::kLlmCallFailed) {
        answered.insert(e.data["activity_id"].get<std::string>());
      }
    }
    pending = resumed.state().in_flight;
    if (pending > 0) ++resumed_with_pending;
    REQUIRE_OK(resumed.RunToEnd());

    BOOST_REQUIRE_MESSAGE(BuildReport(resumed.state()) == want_report,
                          "different final report after a stop at event " << cut);
    BOOST_REQUIRE_MESSAGE(
        Canonical(resumed.log()) == want_events,
        "different events after a stop at event " << cut << ":" << Difference(Canonical(resumed.log()), want_events));
    for (const auto& [id, count] : resumed.llm_requests()) {
      BOOST_REQUIRE_MESSAGE(!answered.count(id), "LLM call " << id << " requested again after a stop at " << cut);
      BOOST_REQUIRE_MESSAGE(count == 1, "LLM call " << id << " requested " << count << " times");
    }
  }
  // The cuts did land while work was in flight.
  BOOST_TEST(resumed_with_pending > n / 2);
}

BOOST_AUTO_TEST_CASE(stopped_at_every_event_boundary_resumes_to_the_same_end) {
  const World world = MakeWorld();
  CheckResumeAtEveryBoundary(SmallSpec(world), [](const World& w) { return MakeScript(w); });
}

// The same in "default" mode, with the fixer, re-used evaluations, credits
// and the final re-measurement on the way.
BOOST_AUTO_TEST_CASE(default_mode_stopped_at_every_event_boundary_resumes_to_the_same_end) {
  const World world = MakeWorld();
  const CampaignSpec spec = DefaultSpec(world);
  CheckResumeAtEveryBoundary(spec, [](const World& w) { return MakeFaultyScript(w); });
  // The run did go through the default mode's events.
  Sim full(spec, MakeFaultyScript(world), 11, 4);
  REQUIRE_OK(full.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(full.RunToEnd());
  std::map<std::string, int> types;
  for (const Event& e : full.log()) ++types[e.type];
  BOOST_TEST(types[event_type::kFixProposed] > 0);
  BOOST_TEST(types[event_type::kEvaluationReused] > 0);
  BOOST_TEST(types[event_type::kExperiencesCredited] > 0);
  BOOST_TEST(types[event_type::kBestSelected] == 2);
}

// With a shared memory bank (one problem, so the bank has one writer and
// the snapshots do not depend on the completion order): the bank's side
// events and the snapshots resume like everything else.
BOOST_AUTO_TEST_CASE(bank_scope_stopped_at_every_event_boundary_resumes_to_the_same_end) {
  const World world = MakeWorld();
  CampaignSpec spec = DefaultSpec(world);
  spec.problems = {world.sources[0].id};
  spec.memory.scope = "bank";
  spec.memory.bank = "shared";
  CheckResumeAtEveryBoundary(spec, [](const World& w) { return MakeFaultyScript(w); });
}

BOOST_AUTO_TEST_CASE(decide_is_idempotent_and_never_reschedules) {
  const World world = MakeWorld();
  const CampaignSpec spec = SmallSpec(world);
  Sim full(spec, MakeScript(world), 5, 4);
  REQUIRE_OK(full.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(full.RunToEnd());
  for (size_t cut = 1; cut <= full.log().size(); cut += 7) {
    auto st = Fold(std::vector<Event>(full.log().begin(), full.log().begin() + cut));
    BOOST_REQUIRE(st.ok());
    auto a = Decide(*st, full.blobs());
    auto b = Decide(*st, full.blobs());
    BOOST_REQUIRE(a.ok());
    BOOST_REQUIRE(b.ok());
    BOOST_REQUIRE_EQUAL(a->size(), b->size());
    for (size_t i = 0; i < a->size(); ++i) {
      BOOST_TEST((*a)[i].event.type == (*b)[i].event.type);
      BOOST_TEST((*a)[i].event.data == (*b)[i].event.data);
      if ((*a)[i].event.type == event_type::kActivityScheduled) {
        BOOST_TEST(!st->activities.count((*a)[i].event.data["activity_id"].get<std::string>()));
      }
    }
    // After appending the decisions, deciding again never repeats one: the
    // rounds go on with what became possible, until nothing is left.
    CampaignState next = *st;
    std::set<std::string> seen;
    for (const Command& c : *a) {
      seen.insert(c.event.type + Dump(c.event.data));
      REQUIRE_OK(Apply(next, c.event));
    }
    for (int round = 0; round < 20; ++round) {
      auto again = Decide(next, full.blobs());
      BOOST_REQUIRE(again.ok());
      if (again->empty()) break;
      for (const Command& c : *again) {
        BOOST_TEST(seen.insert(c.event.type + Dump(c.event.data)).second);
        if (c.event.type == event_type::kActivityScheduled) {
          BOOST_TEST(!next.activities.count(c.event.data["activity_id"].get<std::string>()));
        }
        REQUIRE_OK(Apply(next, c.event));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(pending_activities_rebuild_the_original_requests) {
  const World world = MakeWorld();
  const CampaignSpec spec = SmallSpec(world);
  Sim full(spec, MakeScript(world), 5, 4);
  REQUIRE_OK(full.Start("c1", world.sources, world.hardware));
  // Run a little, recording the requests as first decided.
  std::map<std::string, json> decided;
  auto st = Fold(full.log());
  BOOST_REQUIRE(st.ok());
  CampaignState state = *st;
  MapBlobSource blobs;
  for (const auto& s : world.sources) {
    blobs.Put(s.reference);
    blobs.Put(s.baseline);
  }
  for (const Command& c : DecideAll(state, blobs)) {
    if (c.run) decided[c.run->activity_id] = c.run->request;
  }
  BOOST_REQUIRE(!decided.empty());
  auto pending = PendingActivities(state, blobs);
  BOOST_REQUIRE(pending.ok());
  BOOST_TEST(pending->size() == decided.size());
  for (const ActivityRequest& r : *pending) BOOST_TEST(r.request == decided.at(r.activity_id));
  // A missing blob is a loud error, not a silently different request.
  MapBlobSource empty;
  BOOST_TEST(!PendingActivities(state, empty).ok());
}

}  // namespace
}  // namespace accelopt::workflows::testing
