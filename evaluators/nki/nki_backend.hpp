// The nki backend: Trainium NeuronCores as evaluation slots
// (evaluators/nki/core_pool.hpp), each evaluation an EvaluateNki
// (evaluators/nki/evaluate.hpp) on the core it acquired. After a runner
// crash or timeout the core is health-checked (an identity kernel through
// the same runner, checked exactly) before its next use, and quarantined
// with a log line when that fails.
//
// Contract (evaluators/backend.hpp): Evaluate blocks, never hangs (the
// settings' timeout_s bounds each process; waiting for a core is bounded
// by it too), is thread-safe, runs untrusted code only in runner processes.
// Results: latency = the kept timing round (median, mean, min, its raw
// samples), profile = the 16 profile fields, percent_of_peak by the
// three-engine roofline (faster than it: kSuspicious with the figures),
// hardware = {"device", "generation", "neuron_core", "neuron_sdk",
// "nki_path", "logical_nc_config", ...}; a stand-in's result (allowed) has
// "device" kStandInDevice and "test_stand_in": true.
#pragma once

#include <memory>
#include <string>

#include "base/env.hpp"
#include "evaluators/backend.hpp"
#include "evaluators/nki/core_pool.hpp"
#include "evaluators/nki/evaluate.hpp"
#include "evaluators/nki/nki_config.hpp"

namespace accelopt::eval::nki {

struct NkiBackendOptions {
  NkiConfig config;
  std::string root = "/";  // problem paths are relative to it
  Env* env = nullptr;      // default Env::Default()
  // Accept the test-only stand-in's results, labelled (evaluate.hpp): set
  // from config.allow_test_stand_in or accelopt-eval's --allow-test-stand-in,
  // or by tests in code. Default false: refused.
  bool allow_test_stand_in = false;
  std::map<std::string, std::string> runner_env;  // added to the processes' env (tests: the stand-in's paths)
  // The CPU simulator (nki.simulate, Neuron 2.29+, accelopt-eval run
  // --nki-simulate): correctness only, no device, no time; results say so.
  bool simulate = false;
};

class NkiBackend : public Backend {
 public:
  explicit NkiBackend(NkiBackendOptions options);
  std::string name() const override { return "nki"; }
  EvalResult Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) override;

  // The health check the pool runs on a suspect core (public for tests and
  // the doctor): an identity kernel through the runner on `core`.
  Status HealthCheck(int core);
  // The identity kernel on `core`: checked only (the health check), or also
  // timed in one short round by the evaluation's own capture, profiler and
  // summary parser at the configured LNC (the doctor's "kernel" check).
  NkiEvalOutcome RunIdentity(int core, bool timed);
  // At start (daemon, accelopt-eval run; not with simulate): the identity
  // kernel timed once on the first core. What would fail every timed
  // evaluation the same way (a profile summary layout the parser does not
  // know, an empty device-profile capture, a profiler that fails) is
  // kFailedPrecondition naming it: refused once, at start, not per
  // evaluation. Any other failure is kUnavailable, for the caller to log
  // (the core pool's health checks deal with a bad core).
  Status StartupTimingCheck();
  NeuronCorePool& pool() { return *pool_; }

 private:
  NkiEvalOptions EvalOptions(const EvalSettings& s) const;
  NkiBackendOptions o_;
  std::unique_ptr<NeuronCorePool> pool_;
};

// The trivial kernel of the health check and the doctor: out = x, [128, 512],
// in the language of the SDK path (neuronxcc.nki or the nki package).
extern const char* const kIdentityKernel;
extern const char* const kIdentityKernelNki;
const char* IdentityKernel(NkiPath path);
extern const char* const kIdentityReference;
workflows::ProblemSpec IdentityProblem();

}  // namespace accelopt::eval::nki
