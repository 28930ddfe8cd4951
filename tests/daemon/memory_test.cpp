// Memory banks through the daemon, driven by acceloptctl: two campaigns
// sharing a bank, export/import (bank and AccelOpt formats), retirement,
// rebuild equals live, re-distillation into a new generation, and a restart.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;

namespace {

std::string RunCampaign(DaemonFixture& f, const std::string& problem, const std::string& name) {
  json spec = SmallSpec({problem}, 2, 1, 2, 1);
  spec["memory"] = {{"scope", "bank"}, {"bank", "nightly"}};
  auto r = f.Ctl({"submit", WriteJson(f, name, spec), "--wait", "-o", "json"});
  BOOST_TEST_MESSAGE(r.err);
  BOOST_REQUIRE_EQUAL(r.exit_code, 0);
  BOOST_REQUIRE(r.Json()["state"] == "completed");
  return r.Json()["id"].get<std::string>();
}

json Bank(const DaemonFixture& f, const std::string& bank, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"memory", "show", bank, "-o", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = f.Ctl(args);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return r.Json();
}

}  // namespace

BOOST_AUTO_TEST_CASE(banks_are_shared_exported_retired_rebuilt_and_redistilled) {
  DaemonFixture f(StandardScript(2));
  f.StartDaemon();
  BOOST_TEST(f.Ctl({"memory", "show", "nightly"}).exit_code == 4);  // not found yet

  // Campaign 1 (matmul) writes the bank; campaign 2 (silu) starts from it.
  const std::string c1 = RunCampaign(f, "matmul", "c1.json");
  json bank = Bank(f, "nightly");
  BOOST_REQUIRE(!bank["items"].empty());
  for (const auto& i : bank["items"]) {
    BOOST_TEST(i["campaign"] == c1);
    BOOST_TEST(i["source"] == "campaign");
    BOOST_TEST(i["title"] == "Loop interchange");
    BOOST_TEST(i["pair"]["slow_sha256"].get<std::string>().size() == 64u);  // provenance
  }
  const size_t c1_items = bank["items"].size();
  const std::string c2 = RunCampaign(f, "silu", "c2.json");
  bool saw_c1_items = false;
  for (const auto& e : CtlEvents(f, c2)) {
    if (e["type"] != "MemorySnapshotTaken" ||
        e["data"]["activity_id"].get<std::string>().find("/it0/") == std::string::npos)
      continue;
    BOOST_TEST(e["data"]["bank"] == "nightly");
    for (const auto& item : e["data"]["items"]) {
      saw_c1_items = saw_c1_items || item["id"].get<std::string>().rfind(c1 + "/", 0) == 0;
    }
  }
  BOOST_TEST(saw_c1_items);  // c2's first planners saw c1's experiences
  // ...and their prompts said so.
  int planner_prompts_with_memory = 0;
  for (const auto& req : f.FakeRequests()) {
    const std::string body = req.dump();
    if (body.find("planning the next optimization") != std::string::npos &&
        body.find("void silu") != std::string::npos && body.find("Loop interchange") != std::string::npos) {
      ++planner_prompts_with_memory;
    }
  }
  BOOST_TEST(planner_prompts_with_memory > 0);

  auto list = f.Ctl({"memory", "list", "-o", "json"}).Json();
  BOOST_REQUIRE(list["banks"].size() == 1u);
  BOOST_TEST(list["banks"][0]["bank"] == "nightly");
  BOOST_TEST(list["banks"][0]["items"].get<size_t>() >= c1_items);
  BOOST_TEST(f.Ctl({"memory", "list"}).exit_code == 0);

  // Export, then import into another bank: the same items.
  const std::string exported = f.dir + "/nightly.json";
  BOOST_REQUIRE_EQUAL(f.Ctl({"memory", "export", "nightly", "--file", exported}).exit_code, 0);
  auto imp = f.Ctl({"memory", "import", "copy", "--file", exported, "-o", "json"});
  BOOST_REQUIRE_MESSAGE(imp.exit_code == 0, imp.err);
  BOOST_TEST(imp.Json()["added"].get<size_t>() == Bank(f, "nightly")["items"].size());
  BOOST_TEST(f.Ctl({"memory", "import", "copy", "--file", exported, "-o", "json"}).Json()["added"] == 0);
  // An AccelOpt experience list.
  const std::string accelopt = WriteJson(f, "accelopt.json", json::parse(R"([
      {"title": "Double buffering", "summary": "Overlap loads with compute.", "slow_code": "a", "fast_code": "b", "speedup": 1.3}])"));
  BOOST_REQUIRE_EQUAL(f.Ctl({"memory", "import", "imported", "--file", accelopt, "--format", "accelopt"}).exit_code, 0);
  BOOST_TEST(Bank(f, "imported")["items"][0]["title"] == "Double buffering");
  const std::string garbage = WriteJson(f, "garbage.json", json::parse(R"({"what": 1})"));
  BOOST_TEST(f.Ctl({"memory", "import", "imported", "--file", garbage, "--format", "accelopt"}).exit_code == 1);

  // Retire one item: marked, and gone from the bank's active count.
  const std::string victim = Bank(f, "nightly")["items"][0]["id"];
  auto retired =
      f.Ctl({"memory", "retire", "nightly", victim, "--reason", "came from a rejected kernel", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(retired.exit_code == 0, retired.err);
  bool found = false;
  const json after_retire = Bank(f, "nightly");
  for (const auto& i : after_retire["items"]) {
    if (i["id"] != victim) continue;
    found = true;
    BOOST_TEST(i["retired"] == true);
    BOOST_TEST(i["retired_reason"] == "came from a rejected kernel");
  }
  BOOST_TEST(found);
  BOOST_TEST(f.Ctl({"memory", "retire", "nightly", "no-such-item"}).exit_code == 4);

  // Rebuilding the projection from the log gives the live state back.
  const json before = Bank(f, "nightly");
  auto rebuilt = f.Ctl({"memory", "rebuild", "nightly", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(rebuilt.exit_code == 0, rebuilt.err);
  BOOST_TEST(rebuilt.Json()["equal"] == true);
  BOOST_TEST(Bank(f, "nightly") == before);

  // Re-distill with the configured summarizer: a new generation from the
  // campaigns' pairs; the old one stays readable.
  const size_t requests_before = f.FakeRequests().size();
  auto rd = f.Ctl({"memory", "redistill", "nightly", "--wait", "-o", "json"}, 120);
  BOOST_REQUIRE_MESSAGE(rd.exit_code == 0, rd.err);
  const json started = json::parse(rd.out.substr(0, rd.out.find("\n}") + 2));
  const size_t pairs = started["pairs"].get<size_t>();
  BOOST_TEST(pairs >= c1_items);
  BOOST_TEST(f.FakeRequests().size() == requests_before + pairs);  // one summarizer call per pair
  json gen2 = Bank(f, "nightly");
  BOOST_TEST(gen2["generation"] == 2);
  BOOST_TEST(gen2["items"].size() == pairs);
  for (const auto& i : gen2["items"]) {
    BOOST_TEST(i["source"] == "redistill");
    BOOST_TEST(i["summarizer_activity"].get<std::string>().rfind("redistill/r1/", 0) == 0u);
  }
  BOOST_TEST(Bank(f, "nightly", {"--generation", "1"})["items"].size() == before["items"].size());
  BOOST_TEST(gen2["redistills"][0]["status"] == "completed");
  // A second one while none runs is fine; a bank without campaigns is refused.
  BOOST_TEST(f.Ctl({"memory", "redistill", "imported"}).exit_code == 1);
  // ...unless it names campaigns: '*' is every campaign in the log.
  auto all = f.Ctl({"memory", "redistill", "imported", "--campaign", "*", "--max-pairs", "1", "--wait"}, 120);
  BOOST_REQUIRE_MESSAGE(all.exit_code == 0, all.err);
  json imported = Bank(f, "imported");
  BOOST_TEST(imported["generation"] == 2);
  BOOST_TEST(imported["items"].size() == 1u);
  BOOST_TEST(Bank(f, "imported", {"--generation", "1"})["items"][0]["title"] == "Double buffering");

  // After a restart the banks are as they were.
  BOOST_REQUIRE_EQUAL(f.StopDaemon(), 0);
  f.StartDaemon();
  BOOST_TEST(Bank(f, "nightly") == gen2);
}

// A daemon killed while a re-distillation runs resumes it from the bank's
// events: the pairs with a recorded result are never asked again, the calls
// that were in flight are asked again, and the generation completes.
BOOST_AUTO_TEST_CASE(a_redistillation_resumes_after_a_crash_without_asking_a_summarized_pair_again) {
  json script = StandardScript(2);
  const json summary = {
      {"text", "**Interchange again**\nWalk memory contiguously.\n```cpp\nslow\n```\n```cpp\nfast\n```\n"},
      {"input_tokens", 2000},
      {"output_tokens", 100}};
  // The re-distillation's summarizer answers its first request at once and
  // every later one slowly.
  script["rules"].insert(
      script["rules"].begin(),
      {{{"name", "resume-fast"},
        {"match", {{"model", "resume-model"}, {"times", 1}}},
        {"latency_ms", 10},
        {"reply", summary}},
       {{"name", "resume-slow"}, {"match", {{"model", "resume-model"}}}, {"latency_ms", 8000}, {"reply", summary}}});
  DaemonFixture f(script);
  f.StartDaemon();
  // Two campaigns with a pair each ("paper" mode: the second one summarizes
  // the pair the first one did again).
  auto paper = [&](const std::string& name) {
    json spec = SmallSpec({"matmul"}, 2, 1, 2, 1);
    spec["mode"] = "paper";
    spec["memory"] = {{"scope", "bank"}, {"bank", "nightly"}};
    auto r = f.Ctl({"submit", WriteJson(f, name, spec), "--wait", "-o", "json"});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0 && r.Json()["state"] == "completed", r.err);
    return r.Json()["id"].get<std::string>();
  };
  const std::string c1 = paper("c1.json"), c2 = paper("c2.json");
  auto asked = [&] {
    size_t n = 0;
    for (const auto& r : f.FakeRequests()) n += r.value("model", "") == "resume-model" ? 1 : 0;
    return n;
  };
  auto run = [&]() { return Bank(f, "nightly")["redistills"][0]; };

  auto rd = f.Ctl(
      {"memory", "redistill", "nightly", "--model", "resume-model", "--campaign", c1, "--campaign", c2, "-o", "json"});
  BOOST_REQUIRE_MESSAGE(rd.exit_code == 0, rd.err);
  const size_t pairs = rd.Json()["pairs"].get<size_t>();
  BOOST_TEST_MESSAGE(pairs << " pairs");
  BOOST_REQUIRE(pairs >= 2u);
  // Wait for the first result; the other calls are in flight.
  for (int i = 0; i < 600 && run()["done"].get<size_t>() < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const json before = run();
  BOOST_REQUIRE(before["done"] == 1);
  BOOST_REQUIRE(before["status"] == "running");
  f.KillDaemon();
  const size_t asked_before = asked();

  f.StartDaemon();
  for (int i = 0; i < 1200 && run()["status"] != "completed"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const json done = run();
  BOOST_REQUIRE(done["status"] == "completed");
  BOOST_TEST(done["done"].get<size_t>() == pairs);
  BOOST_TEST(done["added"].get<size_t>() == pairs);
  // Every pair without a result is asked once more, the summarized one never.
  BOOST_TEST(asked() - asked_before == pairs - 1);
  const json bank = Bank(f, "nightly");
  BOOST_TEST(bank["generation"] == 2);
  BOOST_TEST(bank["items"].size() == pairs);
}
