// Crash loop: acceloptd is SIGKILLed at random moments during a campaign and
// restarted each time. Every event a client read survives unchanged, versions
// stay contiguous, no LLM call whose completion was already recorded reaches
// the (fake) provider again, the campaign completes, and its best kernels
// pass a fresh evaluation.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "base/sha256.hpp"
#include "tests/reliability/rel_util.hpp"

using namespace accelopt;
using namespace accelopt::testing;
using namespace accelopt::testing::rel;

namespace {

int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// StandardScript, with every planner reply unique ("Plan #i ...") so that the
// executor prompts that follow are unique per plan.
json UniquePlanScript(int latency_ms, int unique_plans) {
  json script = StandardScript(latency_ms);
  json rules = json::array();
  for (int i = 1; i <= unique_plans; ++i) {
    rules.push_back({{"name", "plan-" + std::to_string(i)},
                     {"match", {{"system_contains", "planning the next optimization"}, {"times", 1}}},
                     {"latency_ms", latency_ms},
                     {"reply", {{"text", "Plan #" + std::to_string(i) + ": reorder the loops to i-k-j\nStream rows of B contiguously."},
                                {"input_tokens", 1000}, {"output_tokens", 50}}}});
  }
  for (auto& r : script["rules"]) rules.push_back(r);
  script["rules"] = rules;
  return script;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sigkill_loop_loses_nothing_acknowledged_and_repeats_no_recorded_call) {
  const int scale = StressScale();
  const int kills = 10 * scale;
  uint32_t seed = std::random_device{}();
  BOOST_TEST_MESSAGE("crash loop: " << kills << " kills, seed " << seed);
  std::mt19937 rng(seed);

  DaemonFixture f(UniquePlanScript(500, 2000 * scale));
  f.StartDaemon();
  const int T = 3 + 2 * scale;  // long enough to outlast the kills
  std::string id = Submit(f, SmallSpec({"matmul", "silu"}, T, 2, 2, 1));

  std::map<uint64_t, json> acknowledged;  // version -> event as first read
  std::vector<int64_t> kill_us;           // wall clock just before each SIGKILL
  std::vector<size_t> fake_count;         // requests the fake server had seen after each kill
  int done = 0;
  std::uniform_int_distribution<int> interval_ms(100, 1500);
  for (; done < kills; ++done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms(rng)));
    json events = ApiEvents(f, id);
    for (const auto& e : events) {
      uint64_t v = e["version"].get<uint64_t>();
      auto [it, inserted] = acknowledged.emplace(v, e);
      if (!inserted) BOOST_TEST(it->second == e, "event " << v << " changed between reads");
    }
    std::string state = State(f, id);
    if (state != "running") {
      BOOST_TEST_MESSAGE("campaign " << state << " after " << done << " kills");
      break;
    }
    kill_us.push_back(NowUs());
    f.KillDaemon();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // requests in transit land
    fake_count.push_back(f.FakeRequests().size());
    f.StartDaemon();
  }
  BOOST_TEST(done >= kills, "the campaign finished after only " << done << " of " << kills << " kills");

  std::string final_state = WaitFinished(f, id, std::chrono::seconds(400));
  BOOST_REQUIRE_EQUAL(final_state, "completed");
  json events = ApiEvents(f, id);

  // Contiguous versions; every acknowledged event is still there, unchanged.
  for (size_t i = 0; i < events.size(); ++i) BOOST_TEST(events[i]["version"].get<size_t>() == i + 1);
  size_t lost = 0;
  for (const auto& [v, e] : acknowledged) {
    if (v > events.size() || events[v - 1] != e) ++lost;
  }
  BOOST_TEST(lost == 0u, lost << " of " << acknowledged.size() << " acknowledged events lost or changed");
  BOOST_TEST_MESSAGE(acknowledged.size() << " acknowledged events checked, " << events.size() << " in the end");

  // LLM activities by prompt: key = sha256(system)/sha256(user).
  std::map<std::string, std::vector<std::string>> by_prompt;
  std::map<std::string, int64_t> completed_at;  // activity -> recorded_at of its completion
  std::map<std::string, int> completions;
  std::set<std::string> llm_activities;
  for (const auto& e : events) {
    const json& d = e["data"];
    if (e["type"] == "ActivityScheduled" && d["kind"] == "llm") {
      std::string key = d["payload"]["system_sha256"].get<std::string>() + "/" + d["payload"]["user_sha256"].get<std::string>();
      by_prompt[key].push_back(d["activity_id"]);
      llm_activities.insert(d["activity_id"]);
    } else if (e["type"] == "LlmCallCompleted" || e["type"] == "LlmCallFailed") {
      std::string a = d["activity_id"];
      if (!completed_at.count(a)) completed_at[a] = e["recorded_at_us"].get<int64_t>();
      ++completions[a];
    }
  }
  for (const auto& a : llm_activities) BOOST_TEST(completions[a] == 1, a << " completed " << completions[a] << " times");
  BOOST_TEST(CountType(events, "LlmCallFailed") == 0);

  // Attribute the fake server's requests to daemon instances (the daemon is
  // dead between a kill and the next start, so the request count at each kill
  // splits the log), and to prompts. Instance e may only send a prompt for
  // activities whose completion was not in the log when it started.
  json requests = f.FakeRequests();
  fake_count.push_back(requests.size());
  size_t begin = 0, repeats = 0, unknown = 0;
  for (size_t inst = 0; inst < fake_count.size(); ++inst) {
    int64_t started_us = inst == 0 ? 0 : kill_us[inst - 1];
    std::map<std::string, int> sent;
    for (size_t i = begin; i < fake_count[inst] && i < requests.size(); ++i) {
      std::string key = Sha256Hex(requests[i]["system"].get<std::string>()) + "/" + Sha256Hex(requests[i]["user"].get<std::string>());
      if (!by_prompt.count(key)) {
        ++unknown;
        continue;
      }
      ++sent[key];
    }
    for (const auto& [key, n] : sent) {
      int open = 0;
      for (const auto& a : by_prompt[key]) open += !(completed_at.count(a) && completed_at[a] < started_us);
      if (n > open) {
        repeats += n - open;
        BOOST_TEST_MESSAGE("instance " << inst << ": prompt of " << by_prompt[key][0] << " sent " << n
                                       << " times, only " << open << " of its activities open");
      }
    }
    begin = fake_count[inst];
  }
  BOOST_TEST(unknown == 0u, unknown << " requests match no scheduled activity's prompt");
  BOOST_TEST(repeats == 0u, repeats << " requests repeated a call whose reply was already recorded");
  BOOST_TEST(requests.size() >= llm_activities.size());
  BOOST_TEST_MESSAGE(requests.size() << " requests for " << llm_activities.size() << " LLM activities");

  // The best kernels pass a fresh evaluation.
  std::string out = f.dir + "/best";
  auto best = f.Ctl({"best", id, "--out", out});
  BOOST_REQUIRE_EQUAL(best.exit_code, 0);
  for (std::string p : {"matmul", "silu"}) {
    std::string kernel = out + "/" + p + ".cpp";
    BOOST_REQUIRE(std::filesystem::exists(kernel));
    auto [code, text] = FreshEvaluation(SourceDir() + "/tests/evaluators/problems/" + p, kernel);
    BOOST_TEST(code == 0, p << ": fresh evaluation failed: " << text.substr(0, 2000));
  }
  BOOST_TEST(f.StopDaemon() == 0);
}
