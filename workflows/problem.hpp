// A benchmark problem as a campaign records it. The workflow cannot read
// files: the runtime loads suites/<backend>/<name>/ (problem.json,
// reference.cpp, baseline.cpp; see docs/contracts.md) into a ProblemSource;
// StartCampaign stores the texts as blobs and records a ProblemInfo per
// problem in CampaignStarted.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <string>

#include "base/json.hpp"
#include "base/status.hpp"
#include "workflows/problem_json.hpp"

namespace accelopt::workflows {

// What the runtime loaded for one spec problem id.
struct ProblemSource {
  std::string id;         // as named in the spec, e.g. "suites/cpu/silu"
  json problem;           // problem.json
  std::string reference;  // reference.cpp text
  std::string baseline;   // baseline.cpp text
};

// What CampaignStarted records per problem.
struct ProblemInfo {
  std::string id;
  std::string name;       // problem.json "name"
  std::string backend;    // problem.json "backend"
  std::string function;   // the kernel function (extern "C"; nki: a top-level Python def)
  std::string signature;  // CSignature(problem)
  json problem;           // problem.json as loaded
  std::string reference_sha256;
  std::string baseline_sha256;

  static Result<ProblemInfo> FromJson(const json& j);  // kInvalidArgument on a wrong shape
};

json ToJson(const ProblemInfo& p);

// The kernel's C declaration of a problem.json, per docs/contracts.md
// (ProblemSpec::KernelSignature with a ';'): inputs `const float*`, outputs
// `float*`, scalars `float` or `int64_t`, dims `int64_t`. E.g.
//   extern "C" void silu(const float* x, float* out, int64_t M, int64_t N);
// kInvalidArgument naming the field when problem.json is not valid
// (ParseProblemSpec, workflows/problem_json.hpp).
Result<std::string> CSignature(const json& problem);

// Checks a ProblemSource (problem.json by ParseProblemSpec, the one parser)
// and builds its ProblemInfo (blob hashes = sha256 of the texts).
// kInvalidArgument naming the problem and the field when something is
// missing or malformed.
Result<ProblemInfo> DescribeProblem(const ProblemSource& source);

}  // namespace accelopt::workflows
