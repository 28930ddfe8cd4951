// The cpu harness, per problem: generated glue + the problem's reference +
// the embedded harness (harness/harness_main.cpp), compiled once and cached
// by content hash under <cache_dir>/harness/. Reference outputs of every
// correctness case are computed once by the trusted harness ("prepare" mode)
// and cached next to it (refs/<case hash>.bin), so a candidate costs one
// compile and one harness run.
//
// The cache is safe to share between threads and processes: files appear by
// atomic rename, and one in-process lock per key avoids duplicate builds.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/protocol.hpp"

namespace accelopt::eval::cpu {

// One correctness case: inputs drawn from `seed`, with some inputs'
// distributions replaced (adversarial), optionally with a few elements of
// every input changed in place after drawing (perturb).
struct CaseSpec {
  std::string label;  // "seed 21", "seed 0, inputs changed in place", "adversarial: x ~ normal(0, 100)"
  uint64_t seed = 0;
  bool perturb = false;
  std::vector<std::pair<int, Distribution>> overrides;  // param index -> distribution
  bool timing = false;  // its inputs are used again for the timed calls
};

// The cases of one evaluation, in order: seeds[0], seeds[0] perturbed (if
// settings.perturbation), seeds[1..], then the problem's adversarial cases
// (if settings.adversarial). The plain seed cases are the timing cases.
std::vector<CaseSpec> MakeCases(const Problem& problem, const EvalSettings& settings);

// The generated glue: AcceloptCallKernel / AcceloptCallReference with the
// problem's documented signatures.
std::string GlueSource(const Problem& problem);

// The text the harness reads on stdin.
std::string JobText(const Problem& problem, const std::string& mode, const std::string& nonce,
                    const std::string& so_path, const std::vector<CaseSpec>& cases,
                    const std::vector<std::string>& ref_paths, const EvalSettings& settings);

class HarnessCache {
 public:
  HarnessCache(std::string cache_dir, std::string compiler);

  struct Built {
    std::string exe;   // the harness executable
    std::string dir;   // its cache folder (refs/ lives here)
    bool fresh = false;  // built by this call
  };
  // kInvalidArgument (with compiler output) when the problem's reference does not compile.
  Result<Built> Get(const Problem& problem, const std::atomic<bool>* cancel);

  // Reference files for `cases`, computing the missing ones.
  Result<std::vector<std::string>> References(const Problem& problem, const Built& harness,
                                              const std::vector<CaseSpec>& cases,
                                              const std::atomic<bool>* cancel);

 private:
  std::shared_ptr<std::mutex> KeyLock(const std::string& key);
  Result<std::string> MainObject(const std::atomic<bool>* cancel);

  std::string cache_dir_;
  std::string compiler_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<std::mutex>> locks_;
};

}  // namespace accelopt::eval::cpu
