// problem.json: the one parser. Every reader of a problem's description (the
// campaign's start in workflows/problem.hpp, the evaluators'
// evaluators/problem.hpp, accelopt-eval, the daemon's suite listing) goes
// through ParseProblemSpec, so a problem.json is accepted or refused the same
// way everywhere. The schema is docs/contracts.md ("Problems"); in short:
//
//   required  name, backend (non-empty), function (a C identifier), params
//             (non-empty array, at least one output), dims (object of
//             positive integers), flops (>= 0), bytes (> 0)
//   optional  description, workload, bound (strings), tolerance (in (0, 1),
//             default 2e-5), paper_dims (like dims), adversarial (array)
//   optional  matmul_flops (in [0, flops]: the part of flops done by a
//             matrix engine; the Trainium roofline splits compute into
//             matrix and vector engines, docs/contracts.md)
//   informative (checked for type only): paper_shape, scaling,
//             flops_formula, bytes_formula, matmul_flops_formula, notes
//             (strings), paper_baseline_pct_of_peak_trn1 (number),
//             provenance (object of strings: where an imported problem
//             came from)
//
// Strict: an unknown key (at the top level, in a param, a distribution or an
// adversarial entry) or a value of the wrong type is an error. Every error
// is kInvalidArgument and names the file and the field:
// "suites/cpu/silu/problem.json: params[1].shape[0]: unknown dim 'Q'".
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::workflows {

// How the harness fills an input. Kinds (fields, defaults):
//   normal   {mean = 0, std = 1}
//   uniform  {low = 0, high = 1}
//   abs_normal {std = 1, offset = 0}   |N(0, std)| + offset: positive data (variances)
//   constant {value}
struct Distribution {
  std::string kind = "normal";
  double a = 0;  // mean / low / std (abs_normal) / value
  double b = 1;  // std / high / offset (abs_normal)

  // `field` names the value in messages ("params[0].distribution").
  static Result<Distribution> FromJson(const json& j, const std::string& field);
  json ToJson() const;
};

enum class ParamKind { kInput, kOutput, kScalar, kDim };

struct Param {
  std::string name;
  ParamKind kind = ParamKind::kInput;
  std::string dtype = "float32";   // arrays: float32; scalars: float32 | int64; dims: int64
  std::vector<std::string> shape;  // arrays: dim names (or integer literals)
  Distribution distribution;       // inputs
  double value = 0;                // scalars
  int64_t elements = 0;            // arrays: product of the resolved shape
};

// One adversarial test case: some inputs drawn from other distributions
// together. problem.json entries {"case", "param", "distribution"} that share
// a "case" name form one case; an entry without "case" is a case of its own.
struct AdversarialCase {
  std::string name;                                             // the "case" name, or "" for a single-entry case
  std::vector<std::pair<std::string, Distribution>> overrides;  // input name -> distribution
};

// The reference's and the baseline's file names by backend, and whether its
// kernels are Python: workflows/backend_traits.hpp (TraitsOf).

// A problem.json, validated.
struct ProblemSpec {
  std::string name;
  std::string backend;
  std::string description;
  std::string workload;
  std::string function;       // the kernel's extern "C" name; reference is <function>_reference
  std::vector<Param> params;  // in signature order
  std::map<std::string, int64_t> dims;
  std::map<std::string, int64_t> paper_dims;
  std::vector<AdversarialCase> adversarial;
  double flops = 0;         // at `dims`
  double bytes = 0;         // at `dims`: every input read once + every output written once
  std::string bound;        // "memory" | "compute" | "matmul" | "vector" (informative)
  double tolerance = 2e-5;  // relative L2 error, per output
  // Of `flops`, those a matrix engine does (matmul multiply-adds as 2);
  // nullopt when the problem does not say (the cpu roofline does not need
  // it; the nki roofline then counts every FLOP as a vector FLOP).
  std::optional<double> matmul_flops;

  // The kernel's C declaration (docs/contracts.md), without the ';', e.g.
  // extern "C" void silu(const float* x, float* out, int64_t M, int64_t N)
  std::string KernelSignature() const;
  // The reference's declaration (double everywhere a float is).
  std::string ReferenceSignature() const;
  // Total bytes of all array parameters (the working set).
  int64_t FootprintBytes() const;
};

// Validates a parsed problem.json. `file` names it in messages (e.g.
// "suites/cpu/silu/problem.json").
Result<ProblemSpec> ParseProblemSpec(const json& j, const std::string& file);

}  // namespace accelopt::workflows
