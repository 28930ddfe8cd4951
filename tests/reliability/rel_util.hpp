// Helpers shared by the reliability tests (tests/reliability/): reading a
// campaign's events through the API, stress scaling, files, the fresh
// re-evaluation of kernels with accelopt-eval.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "tests/daemon/daemon_fixture.hpp"

namespace accelopt::testing::rel {

// ACCELOPT_STRESS_SCALE (default 1, at least 1).
int StressScale();

// Iterations (search.T) for a campaign that must outlast `interruptions`
// kills or power cuts: `per_iteration` interruptions fit in one iteration
// (measured: at scale 10 a T=23 campaign ended after 58 kills, 2.5 per
// iteration; a T=13 one after 22 power cuts, 1.7 per iteration), so the
// campaign gets 1.5x the iterations the count needs, at least `minimum`
// (what CI's scale 1 has always used).
int IterationsToOutlast(int interruptions, double per_iteration, int minimum);

// Every event of the campaign, in version order, through
// GET /v1/campaigns/{id}/events (paged). Fails the test on an HTTP error.
json ApiEvents(const DaemonFixture& f, const std::string& id);

// Submits `spec` through the API; returns the campaign id (fails the test otherwise).
std::string Submit(const DaemonFixture& f, const json& spec);

// The campaign's state ("running", "completed", ...), "" when the API does not answer.
std::string State(const DaemonFixture& f, const std::string& id);

// Polls until the campaign leaves "running" or `timeout` passes; returns the state.
std::string WaitFinished(const DaemonFixture& f, const std::string& id, std::chrono::seconds timeout);

int CountType(const json& events, const std::string& type);

// A fake-server script whose every request gets `fault`.
json AllRequests(const json& fault);

// Polls until the campaign has `n` EvaluationCompleted events (fails the test
// after `timeout`). The crash tests start killing only then: before, every
// kill may land while the first evaluations build the judge (seconds of g++
// on a cold cache, longer than a kill interval), and the campaign makes no
// progress at all while it is being killed (seen: 100 kills, 7 events).
void WaitForEvaluations(const DaemonFixture& f, const std::string& id, int n, std::chrono::seconds timeout);
std::string ReadFile(const std::string& path);
// Every regular file under `dir`, concatenated (binary).
std::string ReadTree(const std::string& dir);

// accelopt-eval run on `kernel` for the problem folder; returns its exit code
// (0: correct) and its output.
std::pair<int, std::string> FreshEvaluation(const std::string& problem_dir, const std::string& kernel);

std::string AcceloptEvalPath();

// Audits the fake LLM server's requests against a campaign's final events,
// for a daemon that was stopped (killed, powered off) at the wall-clock
// times `kill_us` and restarted: `fake_count[i]` is how many requests the
// server had seen when instance i ended (one more entry than kills). An
// instance may only send a prompt for activities whose completion was not
// yet in the log when it started.
struct RequestAudit {
  std::map<std::string, int> completions;  // LLM activity -> completion events
  size_t repeats = 0;                      // requests for calls already recorded
  size_t unknown = 0;                      // requests matching no scheduled prompt
  std::vector<std::string> details;        // one line per repeat
};
RequestAudit AuditRequests(const json& events, const json& requests, const std::vector<int64_t>& kill_us,
                           const std::vector<size_t>& fake_count);

// The events a client has read (acknowledged), by version.
class Acknowledged {
 public:
  // Records `events`; an event read before must be unchanged (checked).
  void Record(const json& events);
  // How many recorded events are missing from, or different in, `final_events`.
  size_t LostIn(const json& final_events) const;
  size_t size() const { return by_version_.size(); }

 private:
  std::map<uint64_t, json> by_version_;
};

// StandardScript (tests/daemon), with every planner reply unique ("Plan #i
// ...") so that the executor prompts that follow are unique per plan.
json UniquePlanScript(int latency_ms, int unique_plans);

// Microseconds since the epoch (the clock events are stamped with).
int64_t NowUs();

}  // namespace accelopt::testing::rel
