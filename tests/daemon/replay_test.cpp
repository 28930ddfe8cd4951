// Replaying a recorded campaign at no LLM cost (acceloptctl submit
// --replay-from; workflows::ReplaySpec, daemon/recorded_replies.hpp): every
// LLM activity takes the recorded reply at the same activity path, the
// judge runs here, and where the run diverges it stops or calls the model.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;

namespace {

struct Calls {
  int completed = 0, replayed = 0, from_recording = 0;
  std::vector<std::string> paths;  // within the campaign
};

// The campaign's LlmCallCompleted events: how many, how many replayed, and
// how many name the activity at the same path in `recorded` as their source.
Calls LlmCalls(const DaemonFixture& f, const std::string& id, const std::string& recorded = "") {
  Calls c;
  for (const auto& e : CtlEvents(f, id)) {
    if (e.value("type", "") != "LlmCallCompleted") continue;
    const json& d = e.at("data");
    ++c.completed;
    const std::string activity = d.value("activity_id", "");
    const std::string path = activity.substr(activity.find('/') + 1);
    c.paths.push_back(path);
    if (d.value("usage_source", "") == "replay" && d.value("cost_source", "") == "replay" &&
        d.value("cost_usd", -1.0) == 0.0) {
      ++c.replayed;
    }
    if (!recorded.empty() && d.value("replayed_from", "") == recorded + "/" + path) ++c.from_recording;
  }
  return c;
}

std::string Submit(DaemonFixture& f, const std::vector<std::string>& args, const std::string& want_state) {
  std::vector<std::string> all = {"submit"};
  all.insert(all.end(), args.begin(), args.end());
  for (const char* a : {"--wait", "-o", "json"}) all.push_back(a);
  auto r = f.Ctl(all);
  BOOST_TEST_MESSAGE(r.err);
  json j = r.Json();
  BOOST_REQUIRE_MESSAGE(j.value("state", "") == want_state, "state " << j.value("state", "") << ": " << r.out);
  return j.at("id").get<std::string>();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_replay_takes_every_reply_from_the_recorded_campaign_and_pays_nothing) {
  DaemonFixture f(StandardScript(2));
  f.StartDaemon();
  const json spec = SmallSpec({"matmul"}, 2, 1, 2, 1);
  const std::string recorded = Submit(f, {WriteJson(f, "spec.json", spec)}, "completed");
  const Calls original = LlmCalls(f, recorded);
  BOOST_REQUIRE(original.completed >= 4);
  BOOST_TEST(original.replayed == 0);
  const size_t asked = f.FakeRequests().size();

  // The recorded campaign's own spec, no spec file: the same activity
  // paths, every reply from the recording, not one request to the model.
  const std::string replay = Submit(f, {"--replay-from", recorded}, "completed");
  const Calls again = LlmCalls(f, replay, recorded);
  BOOST_TEST(f.FakeRequests().size() == asked);
  BOOST_TEST(again.completed == original.completed);
  BOOST_TEST(again.replayed == again.completed);
  BOOST_TEST(again.from_recording == again.completed);
  std::vector<std::string> a = original.paths, b = again.paths;  // completion order may differ
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  BOOST_TEST(b == a, boost::test_tools::per_element());

  // The replay's report is its own measurement: the judge ran here.
  auto got = f.Ctl({"get", replay, "-o", "json"});
  BOOST_REQUIRE_EQUAL(got.exit_code, 0);
  BOOST_TEST(got.Json().at("spec").at("replay").at("from") == recorded);

  // Its report puts the recorded campaign beside it: the same problem, each
  // side's numbers from its own report, the calls counted by where their
  // reply came from.
  const json mine = f.Ctl({"report", replay, "-o", "json"}).Json();
  const json theirs = f.Ctl({"report", recorded, "-o", "json"}).Json();
  BOOST_TEST(!theirs.contains("replay_of"));  // the original is no replay
  BOOST_REQUIRE(mine.contains("replay_of"));
  const json& side = mine.at("replay_of");
  BOOST_TEST(side.at("original") == recorded);
  BOOST_TEST(side.at("llm_calls").at("replayed") == again.replayed);
  BOOST_TEST(side.at("llm_calls").at("live") == 0);
  BOOST_REQUIRE_EQUAL(side.at("problems").size(), 1u);
  const json& p = side.at("problems").at(0);
  BOOST_TEST(p.at("original").at("speedup") == theirs.at("problems").at(0).at("speedup"));
  BOOST_TEST(p.at("replay").at("speedup") == mine.at("problems").at(0).at("speedup"));
  auto text = f.Ctl({"report", replay});
  BOOST_TEST(text.out.find("replay of " + recorded + ", side by side") != std::string::npos, text.out);
  BOOST_TEST(text.out.find("ORIGINAL SPEEDUP") != std::string::npos, text.out);
}

BOOST_AUTO_TEST_CASE(a_replay_that_diverges_stops_naming_the_activity_or_calls_the_model) {
  DaemonFixture f(StandardScript(2));
  f.StartDaemon();
  const std::string recorded = Submit(f, {WriteJson(f, "spec.json", SmallSpec({"matmul"}, 1, 1, 2, 1))}, "completed");
  const size_t asked = f.FakeRequests().size();

  // One iteration more than was recorded: iteration 1 has no recorded reply.
  json longer = SmallSpec({"matmul"}, 2, 1, 2, 1);
  const std::string file = WriteJson(f, "longer.json", longer);
  const std::string stopped = Submit(f, {file, "--replay-from", recorded}, "failed");
  auto got = f.Ctl({"get", stopped, "-o", "json"});
  const std::string reason = got.Json().value("reason", "");
  BOOST_TEST(reason.find("replay stopped") != std::string::npos, reason);
  BOOST_TEST(reason.find("p0/it1/") != std::string::npos, reason);
  BOOST_TEST(reason.find("on_miss") != std::string::npos, reason);
  BOOST_TEST(f.FakeRequests().size() == asked);  // it stopped instead of calling

  // on_miss live: iteration 0 from the recording, iteration 1 from the model.
  const std::string live = Submit(f, {file, "--replay-from", recorded, "--on-miss", "live"}, "completed");
  const Calls c = LlmCalls(f, live, recorded);
  int it0 = 0, it1_live = 0;
  for (size_t i = 0; i < c.paths.size(); ++i) {
    if (c.paths[i].find("/it0/") != std::string::npos)
      ++it0;
    else
      ++it1_live;
  }
  BOOST_TEST(c.from_recording == it0);
  BOOST_TEST(it1_live > 0);
  BOOST_TEST(f.FakeRequests().size() == asked + static_cast<size_t>(it1_live));

  // A replay of a campaign that does not exist is refused at submit.
  auto bad = f.Ctl({"submit", file, "--replay-from", "no-such-campaign"});
  BOOST_TEST(bad.exit_code != 0);
  BOOST_TEST(bad.err.find("no campaign 'no-such-campaign'") != std::string::npos, bad.err);
  auto usage = f.Ctl({"submit", file, "--on-miss", "live"});
  BOOST_TEST(usage.exit_code == 2);
}
