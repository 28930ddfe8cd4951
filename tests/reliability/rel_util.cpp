#include "tests/reliability/rel_util.hpp"

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/sha256.hpp"
#include "base/subprocess.hpp"

namespace accelopt::testing::rel {
namespace fs = std::filesystem;

int StressScale() {
  const char* s = std::getenv("ACCELOPT_STRESS_SCALE");
  int v = s ? std::atoi(s) : 1;
  return v < 1 ? 1 : v;
}

int IterationsToOutlast(int interruptions, double per_iteration, int minimum) {
  const int needed = static_cast<int>(std::ceil(1.5 * interruptions / per_iteration));
  return std::max(minimum, needed);
}

std::string AcceloptEvalPath() { return ACCELOPT_EVAL_PATH; }

json ApiEvents(const DaemonFixture& f, const std::string& id) {
  json all = json::array();
  uint64_t after = 0;
  for (;;) {
    auto [status, body] =
        f.Http("GET", "/v1/campaigns/" + id + "/events?after=" + std::to_string(after) + "&limit=5000");
    BOOST_REQUIRE_MESSAGE(status == 200, "events: HTTP " + std::to_string(status) + " " + body.substr(0, 300));
    json j = json::parse(body);
    if (j["events"].empty()) break;
    for (auto& e : j["events"]) all.push_back(e);
    uint64_t next = j["next"].get<uint64_t>();
    if (next <= after) break;
    after = next;
  }
  return all;
}

std::string Submit(const DaemonFixture& f, const json& spec) {
  auto [status, body] = f.Http("POST", "/v1/campaigns", json{{"spec", spec}}.dump());
  BOOST_REQUIRE_MESSAGE(status == 201, "submit: HTTP " + std::to_string(status) + " " + body);
  return json::parse(body)["id"].get<std::string>();
}

std::string State(const DaemonFixture& f, const std::string& id) {
  auto [status, body] = f.Http("GET", "/v1/campaigns/" + id);
  if (status != 200) return "";
  return json::parse(body).value("state", "");
}

std::string WaitFinished(const DaemonFixture& f, const std::string& id, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string s;
  while (std::chrono::steady_clock::now() < deadline) {
    s = State(f, id);
    if (!s.empty() && s != "running" && s != "paused") return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return s;
}

json AllRequests(const json& fault) { return {{"rules", json::array({{{"name", "all"}, {"fault", fault}}})}}; }

int CountType(const json& events, const std::string& type) {
  int n = 0;
  for (const auto& e : events) n += e["type"] == type;
  return n;
}

void WaitForEvaluations(const DaemonFixture& f, const std::string& id, int n, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int have = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    have = CountType(ApiEvents(f, id), "EvaluationCompleted");
    if (have >= n) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  BOOST_FAIL("the campaign has " << have << " of " << n << " evaluations after " << timeout.count() << " s");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ReadTree(const std::string& dir) {
  std::string all;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file(ec)) all += ReadFile(it->path().string());
  }
  return all;
}

std::pair<int, std::string> FreshEvaluation(const std::string& problem_dir, const std::string& kernel) {
  ProcessSpec spec;
  spec.argv = {AcceloptEvalPath(),
               "run",
               "--problem",
               problem_dir,
               "--kernel",
               kernel,
               "--cache-dir",
               std::string(ACCELOPT_BINARY_DIR) + "/test-eval-cache",
               "--force-busy",
               "--min-time",
               "0.02",
               "--max-rounds",
               "1"};
  spec.timeout = std::chrono::seconds(300);
  auto r = RunProcess(spec);
  if (!r.ok()) return {-1, r.status().ToString()};
  return {r->outcome == ProcessResult::Outcome::kExited ? r->exit_code : -1, r->stdout_data + r->stderr_data};
}

int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

RequestAudit AuditRequests(const json& events, const json& requests, const std::vector<int64_t>& kill_us,
                           const std::vector<size_t>& fake_count) {
  RequestAudit audit;
  // LLM activities by prompt: key = sha256(system)/sha256(user).
  std::map<std::string, std::vector<std::string>> by_prompt;
  std::map<std::string, int64_t> completed_at;  // activity -> recorded_at of its first completion
  for (const auto& e : events) {
    const json& d = e["data"];
    if (e["type"] == "ActivityScheduled" && d["kind"] == "llm") {
      std::string key =
          d["payload"]["system_sha256"].get<std::string>() + "/" + d["payload"]["user_sha256"].get<std::string>();
      by_prompt[key].push_back(d["activity_id"]);
      audit.completions.emplace(d["activity_id"].get<std::string>(), 0);
    } else if (e["type"] == "LlmCallCompleted" || e["type"] == "LlmCallFailed") {
      std::string a = d["activity_id"];
      if (!completed_at.count(a)) completed_at[a] = e["recorded_at_us"].get<int64_t>();
      ++audit.completions[a];
    }
  }
  size_t begin = 0;
  for (size_t inst = 0; inst < fake_count.size(); ++inst) {
    int64_t started_us = inst == 0 ? 0 : kill_us[inst - 1];
    std::map<std::string, int> sent;
    for (size_t i = begin; i < fake_count[inst] && i < requests.size(); ++i) {
      std::string key =
          Sha256Hex(requests[i]["system"].get<std::string>()) + "/" + Sha256Hex(requests[i]["user"].get<std::string>());
      if (!by_prompt.count(key)) {
        ++audit.unknown;
        continue;
      }
      ++sent[key];
    }
    for (const auto& [key, n] : sent) {
      int open = 0;
      for (const auto& a : by_prompt[key]) open += !(completed_at.count(a) && completed_at[a] < started_us);
      if (n > open) {
        audit.repeats += n - open;
        audit.details.push_back("instance " + std::to_string(inst) + ": prompt of " + by_prompt[key][0] + " sent " +
                                std::to_string(n) + " times, only " + std::to_string(open) + " of its activities open");
      }
    }
    begin = fake_count[inst];
  }
  return audit;
}

// StandardScript, with every planner reply unique ("Plan #i ...") so that the
// executor prompts that follow are unique per plan.
json UniquePlanScript(int latency_ms, int unique_plans) {
  json script = StandardScript(latency_ms);
  json rules = json::array();
  for (int i = 1; i <= unique_plans; ++i) {
    rules.push_back(
        {{"name", "plan-" + std::to_string(i)},
         {"match", {{"system_contains", "planning the next optimization"}, {"times", 1}}},
         {"latency_ms", latency_ms},
         {"reply",
          {{"text", "Plan #" + std::to_string(i) + ": reorder the loops to i-k-j\nStream rows of B contiguously."},
           {"input_tokens", 1000},
           {"output_tokens", 50}}}});
  }
  for (auto& r : script["rules"]) rules.push_back(r);
  script["rules"] = rules;
  return script;
}

void Acknowledged::Record(const json& events) {
  for (const auto& e : events) {
    uint64_t v = e["version"].get<uint64_t>();
    auto [it, inserted] = by_version_.emplace(v, e);
    if (!inserted) BOOST_TEST(it->second == e, "event " << v << " changed between reads");
  }
}

size_t Acknowledged::LostIn(const json& final_events) const {
  size_t lost = 0;
  for (const auto& [v, e] : by_version_) {
    if (v > final_events.size() || final_events[v - 1] != e) ++lost;
  }
  return lost;
}

}  // namespace accelopt::testing::rel
