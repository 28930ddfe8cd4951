// A benchmark problem loaded from its folder (suites/<backend>/<name>/):
// problem.json validated against docs/contracts.md ("Problems"), plus the
// paths of reference.cpp and baseline.cpp.
//
// Every validation error is kInvalidArgument and names the file and the
// field: "suites/cpu/silu/problem.json: params[1].shape[0]: unknown dim 'Q'".
//
// Thread safety: LoadProblem is reentrant; Problem is a plain value.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::eval {

// How the harness fills an input. Kinds (fields, defaults):
//   normal   {mean = 0, std = 1}
//   uniform  {low = 0, high = 1}
//   abs_normal {std = 1, offset = 0}   |N(0, std)| + offset: positive data (variances)
//   constant {value}
struct Distribution {
  std::string kind = "normal";
  double a = 0;  // mean / low / std (abs_normal) / value
  double b = 1;  // std / high / offset (abs_normal)

  static Result<Distribution> FromJson(const json& j, const std::string& field);
  json ToJson() const;
};

enum class ParamKind { kInput, kOutput, kScalar, kDim };

struct Param {
  std::string name;
  ParamKind kind = ParamKind::kInput;
  std::string dtype = "float32";           // arrays: float32; scalars: float32 | int64
  std::vector<std::string> shape;          // arrays: dim names (or integer literals)
  Distribution distribution;               // inputs
  double value = 0;                        // scalars
  int64_t elements = 0;                    // arrays: product of the resolved shape
};

// One adversarial test case: some inputs drawn from other distributions
// together. problem.json entries {"case", "param", "distribution"} that share
// a "case" name form one case; an entry without "case" is a case of its own.
struct AdversarialCase {
  std::string name;  // the "case" name, or "" for a single-entry case
  std::vector<std::pair<std::string, Distribution>> overrides;  // input name -> distribution
};

struct Problem {
  std::string dir;            // the folder it was loaded from (as given)
  std::string name;
  std::string backend;
  std::string description;
  std::string workload;
  std::string function;       // the kernel's extern "C" name; reference is <function>_reference
  std::vector<Param> params;  // in signature order
  std::map<std::string, int64_t> dims;
  std::map<std::string, int64_t> paper_dims;
  std::vector<AdversarialCase> adversarial;
  double flops = 0;           // at `dims`
  double bytes = 0;           // at `dims`: every input read once + every output written once
  std::string bound;          // "memory" | "compute" | "matmul" | "vector" (informative)
  double tolerance = 2e-5;    // relative L2 error, per output
  std::string reference_path; // <dir>/reference.cpp
  std::string baseline_path;  // <dir>/baseline.cpp

  // The kernel's C declaration, e.g.
  // extern "C" void silu(const float* x, float* out, int64_t M, int64_t N);
  std::string KernelSignature() const;
  // The reference's declaration (double everywhere a float is).
  std::string ReferenceSignature() const;
  // Total bytes of all array parameters (the working set).
  int64_t FootprintBytes() const;
};

// Loads and validates <dir>/problem.json; checks reference.cpp and baseline.cpp exist.
Result<Problem> LoadProblem(const std::string& dir);
// Validates an already parsed problem.json (dir is used for messages and paths).
Result<Problem> ParseProblem(const json& j, const std::string& dir);

// Folders under `suite_dir` that hold a problem.json, sorted.
Result<std::vector<std::string>> ListProblemDirs(const std::string& suite_dir);

}  // namespace accelopt::eval
