// A benchmark problem loaded from its folder (suites/<backend>/<name>/):
// problem.json validated by the one parser (workflows/problem_json.hpp,
// schema in docs/contracts.md "Problems"), plus the paths of reference.cpp
// and baseline.cpp. Finding problem folders: evaluators/suites.hpp.
//
// Every validation error is kInvalidArgument and names the file and the
// field: "suites/cpu/silu/problem.json: params[1].shape[0]: unknown dim 'Q'".
//
// Thread safety: LoadProblem is reentrant when its Env is; Problem is a
// plain value.
#pragma once

#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "workflows/problem_json.hpp"

namespace accelopt::eval {

using workflows::AdversarialCase;
using workflows::Distribution;
using workflows::Param;
using workflows::ParamKind;

struct Problem : workflows::ProblemSpec {
  std::string dir;             // the folder it was loaded from (as given)
  std::string reference_path;  // <dir>/reference.cpp (nki: reference.py, a numpy module)
  std::string baseline_path;   // <dir>/baseline.cpp (cuda: baseline.cu; nki: baseline.py, an NKI kernel)
};

// Loads and validates <dir>/problem.json; checks reference.cpp and
// baseline.cpp exist. kNotFound for a missing file, kInvalidArgument for a
// malformed problem.json, an I/O error as the Env reports it.
Result<Problem> LoadProblem(const std::string& dir, Env* env);
// Validates an already parsed problem.json (dir is used for messages and paths).
Result<Problem> ParseProblem(const json& j, const std::string& dir);

}  // namespace accelopt::eval
