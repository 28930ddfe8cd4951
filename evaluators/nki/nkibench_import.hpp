// NKIBench from a user's AccelOpt checkout, imported as a suite of nki
// problems: `accelopt-eval import nkibench PATH/TO/AccelOpt/NKIBench --out DIR`.
//
// Reads PATH/summary.json — {problem: {"seed": YAML path, "cases": {key:
// {"values": {dim: int}, "impls": [{"task": numpy reference, "kernel": NKI
// baseline}]}}}}, paths relative to PATH (never taken from file names) —
// and for each problem and case writes DIR/<problem>/ (DIR/<problem>_<case>/
// when a problem has several cases):
//   problem.json  backend "nki", inputs and their distributions from the
//                 seed YAML (evaluators/nki/nkibench_seed.hpp), outputs,
//                 FLOP and byte counts, bound, tolerance and our
//                 adversarial cases from the catalog
//                 (evaluators/nki/nkibench_catalog.hpp), dims from
//                 summary.json, provenance (the files and their sha256)
//   reference.py  the numpy reference module, copied (trusted: the judge
//                 runs it in a separate process; never shipped by us)
//   baseline.py   the NKI baseline kernel, copied
//
// Everything is checked before anything is written: every problem.json is
// validated by the one parser (workflows/problem_json.hpp), the catalog's
// byte formula must equal the parameters' sizes, the reference must define
// get_inputs, forward, transform_to_nki_inputs and transform_nki_outputs and
// its module-level dim constants must equal summary.json's values, the
// kernel must define `kernel` or `optimized_kernel`. Errors are
// kInvalidArgument (kNotFound for a missing file) and name the file:
// "NKIBench/summary.json: problem 'foo': not in the NKIBench catalog ...".
// An existing DIR/<problem>/problem.json is kAlreadyExists unless `force`.
//
// Thread safety: reentrant when the Env is. All file access through `env`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "evaluators/nki/eval_budget.hpp"
#include "evaluators/nki/sdk.hpp"

namespace accelopt::eval::nki {

struct ImportedProblem {
  std::string name;   // folder name under the output dir
  std::string dir;    // the folder written
  json problem;       // the problem.json written
  EvalBudget budget;  // what one evaluation of it moves and holds (eval_budget.hpp)
  // With for_sdk kNki: the rewrites its baseline gets at evaluation
  // (migrate.hpp), or why it cannot run there (then nothing is written for
  // it and the other problems are imported).
  std::vector<std::string> migration;
  std::string refused;
};

struct ImportOptions {
  std::string nkibench_dir;  // the NKIBench folder of an AccelOpt checkout
  std::string out_dir;       // e.g. suites/nki
  bool force = false;        // overwrite existing problem folders
  bool dry_run = false;      // check and build everything, write nothing
  // A problem whose evaluation does not fit a machine of this much memory
  // is refused (kResourceExhausted naming it), before anything is written.
  uint64_t host_memory_bytes = kHostBudgetBytes;
  // The Neuron SDK generation the problems are for (evaluators/nki/sdk.hpp;
  // `--for-sdk`), when known. kBeta1: every baseline must pass that
  // generation's static check. kNki (Neuron 2.28 and later): NKIBench's
  // Beta 1 baselines are checked against the Beta 1 -> nki migration
  // (migrate.hpp, the same the evaluation applies); one that cannot be
  // migrated is reported per problem (ImportedProblem::refused) and not
  // written. nullopt: not checked.
  std::optional<NkiPath> for_sdk;
};

Result<std::vector<ImportedProblem>> ImportNkiBench(const ImportOptions& options, Env* env);

}  // namespace accelopt::eval::nki
