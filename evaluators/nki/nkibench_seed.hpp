// An NKIBench seed file (NKIBench/seeds/<name>.yaml in an AccelOpt
// checkout), parsed: the problem's name, its dim parameters, and its inputs
// as the `input` block draws them.
//
// The YAML subset read (the one the seeds use): top-level `key: value`,
// `key:` followed by `- item` lines, and `key: |` block scalars; keys test_name, parameters, input, impl and
// comments (informative). The
// `input` block is a Python function body of lines
//   NAME = np.random.normal(loc=A, scale=B, size=(EXPR, ...)).astype(np.float32)
//   NAME = np.abs(np.random.normal(loc=0, scale=B, size=(...))).astype(np.float32)
//   NAME = np.random.uniform(low=A, high=B, size=(...)).astype(np.float32)
//   NAME = NUMBER                      (a scalar, e.g. eps = 1e-5)
//   return [NAME, ...]                 (the order forward() takes them in)
// with shape entries integer expressions over the parameters
// (evaluators/nki/dim_expr.hpp). Anything else is refused: the importer
// must not guess what an input is.
//
// Errors are kInvalidArgument naming the file and the line:
// "NKIBench/seeds/silu.yaml:7: input 'x': only .astype(np.float32) inputs ...".
//
// Thread safety: pure function.
#pragma once

#include <string>
#include <vector>

#include "base/status.hpp"
#include "workflows/problem_json.hpp"

namespace accelopt::eval::nki {

struct SeedInput {
  std::string name;
  bool scalar = false;
  std::vector<std::string> shape;        // arrays: one expression per axis, as written
  workflows::Distribution distribution;  // arrays
  double value = 0;                      // scalars
};

struct Seed {
  std::string test_name;
  std::vector<std::string> parameters;  // dim names
  std::vector<SeedInput> inputs;        // in `return [...]` order
  std::string impl;                     // the `impl` block (informative)
  std::string comments;                 // the optional `comments` block (informative)
};

Result<Seed> ParseSeedYaml(const std::string& text, const std::string& file);

}  // namespace accelopt::eval::nki
