// The daemon's `evaluators.nki` settings (config/acceloptd.json; presets in
// config/nki.json):
//   "python"            the Neuron SDK's interpreter, or "auto" (the
//                       default): the newest versioned Deep Learning AMI venv
//                       /opt/aws_neuronx_venv_pytorch*/bin/python, found at
//                       start (evaluators/nki/venv.hpp)
//   "cores"             NeuronCores, one evaluation slot each: "0-31",
//                       "0,2-3", or "auto" (the default when absent): at
//                       daemon start `neuron-ls --json-output` counts them
//                       (devices x cores per device, restricted to
//                       NEURON_RT_VISIBLE_CORES when that is set; 2.34's
//                       `--output-format json` when --json-output fails;
//                       evaluators/nki/neuron_ls.hpp). A missing or failing
//                       neuron-ls stops the start with the fix. --check-config
//                       accepts "auto" without running neuron-ls.
//   "generation"        trn1 | trn2 | trn3 (default trn1): the roofline's
//                       constants (evaluators/nki/trainium.json)
//   "reference_python"  a Python with numpy for the trusted reference
//                       (default /usr/bin/python3)
//   "runner_dir"        the folder of runner.py and reference_runner.py
//                       (default /usr/share/accelopt/nki)
//   "profiler"          "auto" (the default): the profiler the start-up probe
//                       found answering (evaluators/nki/sdk.hpp: neuron-explorer
//                       preferred from Neuron 2.29, neuron-profile before), or
//                       a path / name; /opt/aws/neuron/bin is searched too
//   "logical_nc_config" "auto" (the default): trn2's logical NeuronCore
//                       config read from neuron-ls (logical_neuroncore_config;
//                       1 where neuron-ls does not say), or "1" / "2". The
//                       compile flag --logical-nc-config and the runtime's
//                       NEURON_LOGICAL_NC_CONFIG are both set to it, and
//                       cores are counted in logical cores
//   "work_dir"          where per-evaluation folders are made (default
//                       <state_dir>/cache/nki/work)
//   "allow_test_stand_in" false (the default) | true: accept results of
//                       accelopt's test-only Neuron SDK stand-in
//                       (tests/fakes/nki), each labelled "test stand-in (NOT
//                       a Trainium measurement)" (evaluate.hpp); the daemon
//                       warns at start. It selects nothing: the stand-in is
//                       still found only through python/PYTHONPATH/PATH, and
//                       a real SDK's results never get the label. Never set
//                       it on a real host.
// Strict: unknown keys are errors naming the field.
//
// Thread safety: plain values.
#pragma once

#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "evaluators/nki/sdk.hpp"

namespace accelopt::eval::nki {

struct NkiConfig {
  std::string python = "auto";
  std::vector<int> cores;  // empty while cores_spec is "auto" (ResolveAutoCores fills it)
  std::string cores_spec = "auto";
  std::string generation = "trn1";
  std::string reference_python = "/usr/bin/python3";
  std::string runner_dir = "/usr/share/accelopt/nki";
  std::string profiler = "auto";
  std::string work_dir;
  std::string lnc_spec = "auto";     // "logical_nc_config"
  bool allow_test_stand_in = false;  // "allow_test_stand_in" (above)
  int lnc = 1;                       // resolved (ResolveAutoCores reads neuron-ls when lnc_spec is "auto")
  // The SDK found at start (ResolveSdk); the default is the paper's path.
  SdkChoice sdk;

  // The profiler to run: `profiler`, or the SDK's when "auto".
  std::string ProfilerCommand() const { return profiler == "auto" ? sdk.profiler : profiler; }

  // The keys this adds to a backend's entry (besides slots, cache_dir, ...).
  static const std::vector<std::string>& Keys();
  bool auto_cores() const { return cores_spec == "auto"; }

  // `where` is "evaluators.nki".
  static Result<NkiConfig> FromJson(const json& j, const std::string& where);
};

}  // namespace accelopt::eval::nki
