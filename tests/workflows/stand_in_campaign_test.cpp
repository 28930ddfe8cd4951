// A campaign whose evaluations return a test stand-in's figures
// (result.hardware.test_stand_in: tests/fakes/nki, accepted only on an
// explicit opt-in; not measurements): it says so once
// (StandInFiguresNoted, the report's banner), writes no memory (no pairs,
// no items, nothing to a bank: memory learns only from measurements), and
// fails when it also has measurements (never ranked together). The same
// campaign with measurements learns (the control).
#include <boost/test/unit_test.hpp>

#include "workflows/memory_bank.hpp"
#include "workflows/report.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

// MakeFaultyScript's evaluator, each result marked as the stand-in's when
// `stand_in` says so for its request.
Script StandInScript(const World& w, std::function<bool(const ActivityRequest&)> stand_in) {
  Script s = MakeFaultyScript(w);
  auto evaluate = s.evaluate;
  s.evaluate = [evaluate, stand_in](const ActivityRequest& a) {
    json r = evaluate(a);
    if (stand_in(a)) {
      r["hardware"]["device"] = "test stand-in (NOT a Trainium measurement)";
      r["hardware"]["test_stand_in"] = true;
    }
    return r;
  };
  return s;
}

CampaignSpec StandInBankSpec(const World& w) {
  CampaignSpec spec = DefaultSpec(w);
  spec.memory.scope = kScopeBank;
  spec.memory.bank = "shared";
  return spec;
}

int Count(const Sim& sim, const std::string& type) {
  int n = 0;
  for (const Event& e : sim.log()) n += e.type == type;
  return n;
}

size_t ItemsAdded(const Sim& sim) {
  size_t n = 0;
  for (const Event& e : sim.log())
    if (e.type == event_type::kMemoryUpdated) n += e.data.value("added", json::array()).size();
  return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stand_in_campaign)

BOOST_AUTO_TEST_CASE(stand_in_figures_are_noted_once_and_write_no_memory) {
  const World world = MakeWorld();
  // The control: measurements; the bank learns.
  Sim measured(StandInBankSpec(world), StandInScript(world, [](const ActivityRequest&) { return false; }), 3, 4);
  REQUIRE_OK(measured.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(measured.RunToEnd());
  BOOST_REQUIRE(measured.state().status == kStatusCompleted);
  BOOST_TEST(ItemsAdded(measured) > 0u);
  BOOST_TEST(!measured.side_log().empty());
  BOOST_TEST(Count(measured, event_type::kStandInFiguresNoted) == 0);
  BOOST_TEST(!BuildReport(measured.state()).contains("test_stand_in"));

  // Every figure the stand-in's: the same search, no memory at all.
  Sim standin(StandInBankSpec(world), StandInScript(world, [](const ActivityRequest&) { return true; }), 3, 4);
  REQUIRE_OK(standin.Start("c2", world.sources, world.hardware));
  REQUIRE_OK(standin.RunToEnd());
  BOOST_TEST(standin.state().status == kStatusCompleted, standin.state().reason);
  BOOST_TEST(Count(standin, event_type::kStandInFiguresNoted) == 1);
  BOOST_TEST(ItemsAdded(standin) == 0u);
  for (const Event& e : standin.log()) {
    if (e.type == event_type::kMemoryPairsSelected) BOOST_TEST(e.data.value("pairs", json::array()).empty());
    if (e.type == event_type::kActivityScheduled) BOOST_TEST(e.data.value("role", "") != kRoleSummarizer);
  }
  // Nothing written to the bank (reading it is fine).
  for (const auto& [at, se] : standin.side_log()) BOOST_TEST(se.event.type != bank_event::kMemoryItemsAdded);
  for (const auto& [at, se] : standin.side_log()) BOOST_TEST(se.event.type != bank_event::kMemoryItemsCredited);
  const json report = BuildReport(standin.state());
  BOOST_REQUIRE(report.contains("test_stand_in"));
  BOOST_TEST(report["test_stand_in"]["notice"].get<std::string>().find("NOT from the hardware") != std::string::npos);
  BOOST_TEST(report["test_stand_in"]["memory"] == "not written: memory learns only from measurements");
  BOOST_TEST(report["test_stand_in"]["results"].get<int64_t>() > 0);
  // The banner comes before any memory step.
  size_t noted = 0, first_memory = standin.log().size();
  for (size_t i = 0; i < standin.log().size(); ++i) {
    if (standin.log()[i].type == event_type::kStandInFiguresNoted) noted = i;
    if (standin.log()[i].type == event_type::kMemoryUpdated && first_memory == standin.log().size()) first_memory = i;
  }
  BOOST_TEST(noted < first_memory);
}

BOOST_AUTO_TEST_CASE(stand_in_figures_and_measurements_are_never_ranked_together) {
  const World world = MakeWorld();
  // The beam (re-)measured, every candidate the stand-in's.
  Sim mixed(StandInBankSpec(world),
            StandInScript(
                world, [](const ActivityRequest& a) { return a.activity_id.find("/measure/") == std::string::npos; }),
            3, 4);
  REQUIRE_OK(mixed.Start("c3", world.sources, world.hardware));
  REQUIRE_OK(mixed.RunToEnd());
  BOOST_TEST(mixed.state().status == kStatusFailed);
  BOOST_TEST(mixed.state().reason.find("never ranked together") != std::string::npos, mixed.state().reason);
  BOOST_TEST(ItemsAdded(mixed) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace accelopt::workflows::testing
