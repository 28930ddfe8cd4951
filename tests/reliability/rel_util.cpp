#include "tests/reliability/rel_util.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/subprocess.hpp"

namespace accelopt::testing::rel {
namespace fs = std::filesystem;

int StressScale() {
  const char* s = std::getenv("ACCELOPT_STRESS_SCALE");
  int v = s ? std::atoi(s) : 1;
  return v < 1 ? 1 : v;
}

std::string AcceloptEvalPath() { return ACCELOPT_EVAL_PATH; }

json ApiEvents(const DaemonFixture& f, const std::string& id) {
  json all = json::array();
  uint64_t after = 0;
  for (;;) {
    auto [status, body] = f.Http("GET", "/v1/campaigns/" + id + "/events?after=" + std::to_string(after) + "&limit=5000");
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

int CountType(const json& events, const std::string& type) {
  int n = 0;
  for (const auto& e : events) n += e["type"] == type;
  return n;
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
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file(ec)) all += ReadFile(it->path().string());
  }
  return all;
}

std::pair<int, std::string> FreshEvaluation(const std::string& problem_dir, const std::string& kernel) {
  ProcessSpec spec;
  spec.argv = {AcceloptEvalPath(), "run", "--problem", problem_dir, "--kernel", kernel,
               "--cache-dir", std::string(ACCELOPT_BINARY_DIR) + "/test-eval-cache", "--min-time", "0.02",
               "--max-rounds", "1"};
  spec.timeout = std::chrono::seconds(300);
  auto r = RunProcess(spec);
  if (!r.ok()) return {-1, r.status().ToString()};
  return {r->outcome == ProcessResult::Outcome::kExited ? r->exit_code : -1, r->stdout_data + r->stderr_data};
}

}  // namespace accelopt::testing::rel
