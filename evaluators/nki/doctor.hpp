// `accelopt-eval doctor nki`: is this host ready to evaluate NKI kernels?
// Each check names what it looked at and, when it fails, the fix:
//   python        evaluators.nki.python runs
//   numpy         ... and imports numpy
//   neuronxcc     ... and the Neuron SDK's versions (neuronx-cc, the nki
//                 package, runtime and tools: evaluators/nki/sdk.hpp) are a
//                 supported generation; the test-only stand-in
//                 (tests/fakes/nki) is a failure
//   sdk           which path the runner uses (neuronxcc.nki up to 2.27, the
//                 nki package from 2.28) and which profiler
//   profiler, neuron-ls   on PATH (plus /opt/aws/neuron/bin): neuron-profile
//                 or neuron-explorer, as the SDK ships
//   devices       /dev/neuron* exist and are readable
//   cores         the configured cores exist (neuron-ls --json-output); with
//                 "auto", the cores the daemon would detect (neuron_ls.hpp)
//   reference     the trusted reference's Python imports numpy
//   kernel        a trivial kernel compiled and run on the first core and
//                 checked exactly (only when every check above passed)
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

// `runner_env` is added to the checked processes' env (tests).
std::vector<DoctorCheck> RunDoctor(const NkiConfig& config, Env* env,
                                   const std::map<std::string, std::string>& runner_env = {},
                                   const std::string& dpkg_status = "/var/lib/dpkg/status");

// "ok      python  /opt/...: Python 3.10.12\nMISSING neuronxcc ...\n  fix: ..."
std::string FormatDoctor(const std::vector<DoctorCheck>& checks);

}  // namespace accelopt::eval::nki
