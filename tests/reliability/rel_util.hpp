// Helpers shared by the reliability tests (tests/reliability/): reading a
// campaign's events through the API, stress scaling, files, the fresh
// re-evaluation of kernels with accelopt-eval.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "tests/daemon/daemon_fixture.hpp"

namespace accelopt::testing::rel {

// ACCELOPT_STRESS_SCALE (default 1, at least 1).
int StressScale();

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
std::string ReadFile(const std::string& path);
// Every regular file under `dir`, concatenated (binary).
std::string ReadTree(const std::string& dir);

// accelopt-eval run on `kernel` for the problem folder; returns its exit code
// (0: correct) and its output.
std::pair<int, std::string> FreshEvaluation(const std::string& problem_dir, const std::string& kernel);

std::string AcceloptEvalPath();

}  // namespace accelopt::testing::rel
