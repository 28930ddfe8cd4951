// A campaign on an nki problem through the real acceloptd: the NKIBench-shaped
// fixture (tests/evaluators/nkibench/) imported with the importer, the nki
// backend pointed at the test-only Neuron SDK stand-in (tests/fakes/nki/) the
// way the nki tests do (its python/ on the runner's PYTHONPATH, through a
// wrapper interpreter, since the daemon's config has no environment key; its
// neuron-profile as the profiler), the fake LLM scripted with a plan and a
// Python kernel.
//
// Without evaluators.nki.allow_test_stand_in (default false) the daemon
// refuses the stand-in's results (nki_stand_in_campaign_test.cpp runs the
// opt-in, labelled). What this proves: the campaign is accepted,
// its baseline measurement reaches the nki backend, the real runner.py runs
// under the stand-in, and the judge refuses the result as the stand-in's, so
// nothing passes it off as a Trainium measurement. The baseline failing, the
// problem fails before any LLM call: the scripted plan and kernel are never
// asked for (the executor's Python path is covered by tests/workflows).
#include <sys/stat.h>

#include <boost/test/unit_test.hpp>
#include <fstream>

#include "base/env.hpp"
#include "evaluators/nki/nkibench_import.hpp"
#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;

namespace {

json NkiCampaignScript() {
  // The fixture's baseline as the executor's rewrite (a Python NKI kernel).
  const std::string kernel = ReadAll(SourceDir() + "/tests/evaluators/nkibench/kernels/silu_small.py");
  BOOST_REQUIRE(kernel.find("def kernel(") != std::string::npos);
  return {
      {"rules",
       {{{"name", "plan"},
         {"match", {{"system_contains", "planning the next optimization"}}},
         {"reply",
          {{"text", "Fuse the sigmoid into the multiply\nOne pass over each tile."},
           {"input_tokens", 1000},
           {"output_tokens", 50}}}},
        {{"name", "exec-nki"},
         {"match", {{"system_contains", "implements one optimization plan"}, {"user_contains", "def kernel"}}},
         {"reply",
          {{"text", "Here it is.\n```python\n" + kernel + "```\n"}, {"input_tokens", 1500}, {"output_tokens", 300}}}},
        {{"name", "summarize"},
         {"match", {{"system_contains", "distill"}}},
         {"reply",
          {{"text", "**Fusion**\nOne pass.\n```python\nslow\n```\n```python\nfast\n```\n"},
           {"input_tokens", 2000},
           {"output_tokens", 100}}}}}}};
}

// The nki suite, imported from the NKIBench-shaped fixture into `dir`.
std::string ImportNkiFixture(const std::string& dir) {
  eval::nki::ImportOptions o;
  o.nkibench_dir = SourceDir() + "/tests/evaluators/nkibench";
  o.out_dir = dir + "/suites/nki";
  auto r = eval::nki::ImportNkiBench(o, Env::Default());
  BOOST_REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  return o.out_dir;
}

// An "interpreter" that is /usr/bin/python3 with the stand-in's neuronxcc on
// its path (the runner's environment is cleared; this is how a config can
// point at it).
std::string StandInPython(const std::string& dir) {
  const std::string path = dir + "/stand-in-python";
  std::ofstream(path) << "#!/bin/sh\nPYTHONPATH=" << SourceDir()
                      << "/tests/fakes/nki/python exec /usr/bin/python3 \"$@\"\n";
  chmod(path.c_str(), 0755);
  return path;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nki_campaign)

BOOST_AUTO_TEST_CASE(nki_campaign_reaches_the_nki_backend_which_refuses_the_stand_in) {
  DaemonFixture f(NkiCampaignScript());
  const std::string suite = ImportNkiFixture(f.dir);
  const json nki = {{"python", StandInPython(f.dir)},
                    {"cores", "0"},
                    {"reference_python", "/usr/bin/python3"},
                    {"runner_dir", SourceDir() + "/evaluators/nki"},
                    {"profiler", SourceDir() + "/tests/fakes/nki/bin/neuron-profile"},
                    {"work_dir", f.dir + "/nki-work"}};
  {
    json config = json::parse(std::ifstream(f.config_path));
    config["evaluators"] = {{"nki", nki}};
    config["suites"] = {{"nki", suite}};
    std::ofstream(f.config_path) << config.dump(1);
  }
  f.StartDaemon();
  json spec = SmallSpec({"silu"}, 1, 1, 1, 1);
  spec["suite"] = "suites/nki";
  auto r = f.Ctl({"submit", WriteJson(f, "spec.json", spec), "--wait", "-o", "json"});
  BOOST_TEST_MESSAGE(r.err);
  // Accepted at submission (before, the baseline's missing extern "C" refused it) ...
  BOOST_REQUIRE_MESSAGE(r.out.find("\"id\"") != std::string::npos, "not accepted: " + r.out + r.err);
  const json summary = r.Json();
  const std::string id = summary["id"];
  json events = CtlEvents(f, id);
  BOOST_TEST_MESSAGE(events.dump(1).substr(0, 20000));
  BOOST_REQUIRE(!events.empty());
  BOOST_TEST(events[0]["type"] == "CampaignStarted");
  BOOST_TEST(events[0]["data"]["problems"][0]["backend"] == "nki");
  BOOST_TEST(events[0]["data"]["problems"][0]["function"] == "kernel");

  // ... the baseline measurement reached the nki backend: the real runner.py
  // ran under the stand-in (its hello record said so) ...
  int nki_evaluations = 0;
  json result;
  for (const json& e : events) {
    if (e["type"] == "ActivityScheduled" && e["data"]["kind"] == "evaluation") {
      nki_evaluations += e["data"]["payload"]["backend"] == "nki";
      BOOST_TEST(e["data"]["payload"]["problem"] == "suites/nki/silu");
    }
    if (e["type"] == "EvaluationCompleted") result = e["data"]["result"];
  }
  BOOST_TEST(nki_evaluations == 1);
  BOOST_REQUIRE(result.is_object());
  BOOST_TEST(result["hardware"]["device"] == "test stand-in (NOT a Trainium measurement)");
  // ... and the judge refused it: no latency, no profile, no % of peak,
  // never "device": "trainium" anywhere in the campaign.
  BOOST_TEST(result["status"] == "internal_error");
  BOOST_TEST(result["reason"].get<std::string>().find("test-only Neuron SDK stand-in") != std::string::npos);
  BOOST_TEST(result["reason"].get<std::string>().find("evaluators.nki.allow_test_stand_in") != std::string::npos);
  BOOST_TEST(result["latency"].is_null());
  BOOST_TEST(result["percent_of_peak"].is_null());
  BOOST_TEST(result["profile"].empty());
  BOOST_TEST(events.dump().find("\"trainium\"") == std::string::npos);

  // The campaign ends (failed: its only problem's baseline did not pass),
  // saying why; no LLM call was made for a baseline that was refused.
  BOOST_TEST(summary["state"] == "failed");
  BOOST_TEST(summary["reason"].get<std::string>().find("the baseline did not pass: internal_error: this result came "
                                                       "from the test-only Neuron SDK stand-in") != std::string::npos);
  BOOST_TEST(summary["spend"]["evaluations"] == 1);
  BOOST_TEST(f.FakeRequests().empty());
  auto report = f.Ctl({"report", id, "-o", "json"});
  BOOST_TEST(report.exit_code == 0);
  BOOST_TEST(report.out.find("\"trainium\"") == std::string::npos);
  BOOST_TEST(f.StopDaemon() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
