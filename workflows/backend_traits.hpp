// What is fixed about a backend's kernels, by backend name: the language
// they are written and fenced in, the problem folder's reference and
// baseline files, and whether a kernel is a Python module (fenced,
// normalized and searched for `def <function>(` as Python) or C/C++/CUDA
// source. One row per backend in backend_traits.cpp; the prompt text of a
// backend is its prompt set (backend_prompts.hpp), the evaluator its module
// under evaluators/. A backend added outside this file (a daemon module
// registered with RegisterBackendModule) registers its row with
// RegisterBackendTraits; the daemon refuses a configured backend without a
// row at its start (daemon/config.cpp, ParseEvaluators), so TraitsOf's
// fallback (the cpu row) is never what a configured backend gets.
//
// Thread safety: the table is built on first use; RegisterBackendTraits must
// run before it is read (in main, before the config is parsed), on one
// thread. The lookups are then pure.
#pragma once

#include <string>

namespace accelopt::workflows {

struct BackendTraits {
  std::string name;                // "cpu", "cuda", "nki", "triton"
  std::string kernel_language;     // fence language of kernels: "cpp" | "python"
  std::string reference_language;  // fence language of the trusted reference: "cpp" | "python"
  std::string reference_file;      // in the problem folder: reference.cpp | reference.py
  std::string baseline_file;       // baseline.cpp | baseline.cu | baseline.py
  bool python_kernel = false;      // the kernel is a Python module
  // Its evaluator times by the published rule (2 warm-ups, 10 timed runs,
  // up to 3 rounds, the tightest kept) and latency.mean_us is the kept
  // round's mean: the figure the published code ranks by (nki).
  bool published_timing = false;
};

// The row of `backend`; nullptr for a name without one.
const BackendTraits* FindTraits(const std::string& backend);
// The row of `backend`; the cpu row for a name without one.
const BackendTraits& TraitsOf(const std::string& backend);
// Adds a row (a name already in the table replaces that row).
void RegisterBackendTraits(BackendTraits row);

}  // namespace accelopt::workflows
