// The daemon with evaluators.nki.allow_test_stand_in (issue 38): for each
// Neuron release the stand-in plays (2.26, 2.29, 2.31, 2.33, 2.34; trn1 and
// trn2 where the docs say NKI runs there) the daemon starts with a warning,
// says so in /v1/health, and an nki campaign's baseline evaluation gives a
// latency from the stand-in's profile, labelled as the stand-in's in the
// result, the summary, the events (StandInFiguresNoted) and the report; the
// campaign writes nothing to its memory bank. Nothing here is a Trainium
// measurement: no machine of ours has one.
#include <sys/stat.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#include "base/env.hpp"
#include "evaluators/nki/nkibench_import.hpp"
#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;

namespace {

json StandInScriptForNki() {
  const std::string kernel = ReadAll(SourceDir() + "/tests/evaluators/nkibench/kernels/silu_small.py");
  return {
      {"rules",
       {{{"name", "plan"},
         {"match", {{"system_contains", "planning the next optimization"}}},
         {"reply",
          {{"text", "Fuse the sigmoid into the multiply\nOne pass over each tile."},
           {"input_tokens", 1000},
           {"output_tokens", 50}}}},
        {{"name", "exec-nki"},
         {"match", {{"system_contains", "implements one optimization plan"}}},
         {"reply",
          {{"text", "Here it is.\n```python\n" + kernel + "```\n"}, {"input_tokens", 1500}, {"output_tokens", 300}}}},
        {{"name", "summarize"},
         {"match", {{"system_contains", "distill"}}},
         {"reply",
          {{"text", "**Fusion**\nOne pass.\n```python\nslow\n```\n```python\nfast\n```\n"},
           {"input_tokens", 2000},
           {"output_tokens", 100}}}}}}};
}

// A bin folder as the stand-in plays `release`: a wrapper interpreter (the
// stand-in on PYTHONPATH), both profilers beside it (the judge puts the
// interpreter's folder first on the runner's PATH; the config names the
// one to use), `stand-in-sdk` naming the release.
std::string StandInBin(const std::string& dir, const std::string& release) {
  namespace fs = std::filesystem;
  const std::string bin = dir + "/stand-in-bin";
  fs::create_directories(bin);
  for (const char* f : {"neuron-profile", "neuron-explorer", "stand_in_summary.py"})
    fs::create_symlink(SourceDir() + "/tests/fakes/nki/bin/" + f, bin + "/" + f);
  std::ofstream(bin + "/stand-in-sdk") << release << "\n";
  std::ofstream(bin + "/python") << "#!/bin/sh\nPYTHONPATH=" << SourceDir()
                                 << "/tests/fakes/nki/python ACCELOPT_STAND_IN_SDK=" << release
                                 << " exec /usr/bin/python3 \"$@\"\n";
  chmod((bin + "/python").c_str(), 0755);
  return bin;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nki_stand_in_campaign)

BOOST_AUTO_TEST_CASE(with_the_config_key_each_release_gives_a_labelled_baseline_latency) {
  struct K {
    std::string release, generation, lnc;
  };
  for (const K& k : std::vector<K>{{"2.26", "trn1", "1"},
                                   {"2.26", "trn2", "2"},
                                   {"2.29", "trn2", "2"},
                                   {"2.31", "trn2", "2"},
                                   {"2.33", "trn2", "2"},
                                   {"2.34", "trn2", "2"}}) {
    BOOST_TEST_CONTEXT(k.release << " " << k.generation) {
      DaemonFixture f(StandInScriptForNki());
      eval::nki::ImportOptions io;
      io.nkibench_dir = SourceDir() + "/tests/evaluators/nkibench";
      io.out_dir = f.dir + "/suites/nki";
      BOOST_REQUIRE(eval::nki::ImportNkiBench(io, Env::Default()).ok());
      const std::string bin = StandInBin(f.dir, k.release);
      {
        json config = json::parse(std::ifstream(f.config_path));
        config["evaluators"] = {{"nki",
                                 {{"python", bin + "/python"},
                                  {"cores", "0"},
                                  {"logical_nc_config", k.lnc},
                                  {"generation", k.generation},
                                  {"reference_python", "/usr/bin/python3"},
                                  {"runner_dir", SourceDir() + "/evaluators/nki"},
                                  {"work_dir", f.dir + "/nki-work"},
                                  // The release's profiler (the daemon's PATH does not hold the stand-in's).
                                  {"profiler", bin + (k.release == "2.26" ? "/neuron-profile" : "/neuron-explorer")},
                                  {"allow_test_stand_in", true}}}};
        config["suites"] = {{"nki", io.out_dir}};
        std::ofstream(f.config_path) << config.dump(1);
      }
      f.StartDaemon();
      BOOST_TEST(ReadAll(f.daemon_log).find("allow_test_stand_in is true") != std::string::npos, ReadAll(f.daemon_log));
      auto [hs, hb] = f.Http("GET", "/v1/health");
      BOOST_TEST(hs == 200);
      BOOST_TEST(json::parse(hb)["test_stand_in"]["allowed_for"] == json::array({"nki"}), hb);
      json spec = SmallSpec({"silu"}, 2, 1, 1, 1);
      spec["suite"] = "suites/nki";
      spec["memory"] = {{"scope", "bank"}, {"bank", "standin"}};
      auto r = f.Ctl({"submit", WriteJson(f, "spec.json", spec), "--wait", "-o", "json"});
      BOOST_REQUIRE_MESSAGE(r.out.find("\"id\"") != std::string::npos, r.out + r.err);
      const json summary = r.Json();
      const std::string id = summary["id"];
      json events = CtlEvents(f, id);
      json baseline;
      int noted = 0;
      for (const json& e : events) {
        if (e["type"] == "EvaluationCompleted" && baseline.is_null()) baseline = e["data"]["result"];
        noted += e["type"] == "StandInFiguresNoted";
      }
      BOOST_REQUIRE(baseline.is_object());
      BOOST_TEST(baseline["status"] == "ok", baseline.dump());
      BOOST_TEST(baseline["latency"]["mean_us"].get<double>() == 1000.0, boost::test_tools::tolerance(0.01));
      BOOST_TEST(baseline["hardware"]["device"] == "test stand-in (NOT a Trainium measurement)");
      BOOST_TEST(baseline["hardware"]["test_stand_in"] == true);
      BOOST_TEST(baseline["hardware"]["logical_nc_config"] == std::stoi(k.lnc));
      BOOST_TEST(noted == 1);
      BOOST_TEST(events.dump().find("\"trainium\"") == std::string::npos);
      BOOST_TEST(summary["state"] == "completed", summary.dump());
      BOOST_TEST(summary["test_stand_in"].get<std::string>().find("TEST STAND-IN FIGURES") == 0u, summary.dump());
      auto report = f.Ctl({"report", id});
      BOOST_TEST(report.out.rfind("TEST STAND-IN FIGURES", 0) == 0u, report.out);
      BOOST_TEST(report.out.find("memory not written: memory learns only from measurements") != std::string::npos);
      // Memory learns only from measurements: the bank got nothing.
      auto [ms, mb] = f.Http("GET", "/v1/memory/standin");
      BOOST_TEST_MESSAGE("GET /v1/memory/standin: " << ms << " " << mb.substr(0, 300));
      BOOST_TEST((ms == 404 || (ms == 200 && json::parse(mb)["items"].empty())), mb);
      BOOST_TEST(ReadAll(f.daemon_log).find("it writes no memory") != std::string::npos);
      BOOST_TEST(f.StopDaemon() == 0);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
