// `accelopt-eval doctor nki`: is this host ready to evaluate NKI kernels?
// Each check names what it looked at and, when it fails, the fix:
//   python        evaluators.nki.python runs
//   numpy         ... and imports numpy
//   neuronxcc     ... and what the SDK can do (evaluators/nki/sdk.hpp: which
//                 namespaces import, which profilers answer, the release)
//                 gives a path; the fix names the real cause (the import
//                 error, a probe that timed out on a cold import); the
//                 test-only stand-in (tests/fakes/nki) is a failure,
//                 unless allowed (then its detail says TEST STAND-IN)
//   sdk           which path the runner uses, which profiler, how the LNC
//                 is set, and any warning (a release newer than known)
//   profiler      the profiler the probe found answers (--help)
//   neuron-ls     answers with JSON (--json-output, or 2.34's
//                 --output-format json)
//   devices       /dev/neuron* exist
//   cores         the configured cores exist; with "auto", the cores the
//                 daemon would detect (neuron_ls.hpp); the slot's LNC (from
//                 neuron-ls, or the configured one, which must agree)
//   reference     the trusted reference's Python imports numpy
//   kernel        an identity kernel compiled, run, checked AND timed on the
//                 first core at the slot's LNC through the evaluation's own
//                 capture, profiler and summary parser (one short round):
//                 "yes" only where a timed evaluation works (only when every
//                 check above passed)
// Every OS access through the Env. Thread safety: reentrant.
#pragma once

#include <string>
#include <vector>

#include "base/env.hpp"
#include "evaluators/nki/nki_config.hpp"
#include "evaluators/nki/sdk.hpp"

namespace accelopt::eval::nki {

struct DoctorCheck {
  std::string name;
  bool ok = false;
  bool skipped = false;  // not run because an earlier check failed
  std::string detail;    // what was found
  std::string fix;       // when !ok: what to do
};

struct DoctorOptions {
  std::string dpkg_status = "/var/lib/dpkg/status";
  std::string dev_dir = "/dev";  // where /dev/neuron* are looked for (tests: a folder of their own)
  // The stand-in counts as an SDK, its figures labelled (as
  // NkiConfig::allow_test_stand_in, which also sets it; --allow-test-stand-in).
  bool allow_test_stand_in = false;
};

// `runner_env` is added to the checked processes' env (tests).
std::vector<DoctorCheck> RunDoctor(const NkiConfig& config, Env* env,
                                   const std::map<std::string, std::string>& runner_env = {},
                                   const std::string& dpkg_status = "/var/lib/dpkg/status");
std::vector<DoctorCheck> RunDoctor(const NkiConfig& config, Env* env,
                                   const std::map<std::string, std::string>& runner_env, const DoctorOptions& options);

// "ok      python  /opt/...: Python 3.10.12\nMISSING neuronxcc ...\n  fix: ..."
std::string FormatDoctor(const std::vector<DoctorCheck>& checks);

}  // namespace accelopt::eval::nki
