// Suites: folders of problem folders (suites/<backend>/<name>/, each with
// problem.json, reference.cpp and baseline.cpp; docs/contracts.md). The one
// place that finds problems on disk: the daemon's submissions, /v1/suites
// and /v1/baseline, and accelopt-eval's baseline and prompts use it.
//
// A problem id is "suites/<suite>/<name>"; a daemon maps suite names to
// folders (DaemonConfig::suites).
//
// Every file access goes through the Env given. Thread safety: reentrant
// when the Env is.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"
#include "workflows/problem.hpp"
#include "workflows/problem_json.hpp"

namespace accelopt::eval {

// Folders under `suite_dir` that hold a problem.json, sorted (full paths).
// kNotFound when `suite_dir` is not a directory.
Result<std::vector<std::string>> ListProblemDirs(const std::string& suite_dir, Env* env);

// The folder of a problem id: "suites/<suite>/<name>" ->
// suites[<suite>]/<name>; "" when the suite is unknown or the id is not of
// that form (or climbs out with "..").
std::string ProblemDirOf(const std::map<std::string, std::string>& suites, const std::string& problem_id);

// problem.json (validated by the one parser: a malformed one is refused
// here, with the file and the field), reference.cpp and baseline.cpp of a
// problem folder, as a campaign records them. `id` names the problem in
// messages and in the source.
Result<workflows::ProblemSource> LoadProblemSource(const std::string& dir, const std::string& id, Env* env);

// One problem of a suite as listed: its folder name, id, folder and
// problem.json (or why it is not valid).
struct SuiteProblem {
  std::string name;  // the folder's name
  std::string id;    // "suites/<suite>/<name>"
  std::string dir;
  Status error;                 // why problem.json is not valid (unreadable, malformed)
  workflows::ProblemSpec spec;  // when error is ok
};
// Every problem folder of suite `suite` at `dir`, sorted by name.
Result<std::vector<SuiteProblem>> ListSuite(const std::string& suite, const std::string& dir, Env* env);

}  // namespace accelopt::eval
