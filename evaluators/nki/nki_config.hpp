// The daemon's `evaluators.nki` settings (config/acceloptd.json; presets in
// config/nki.json):
//   "python"            the Neuron SDK's interpreter (required), e.g.
//                       /opt/aws_neuronx_venv_pytorch/bin/python
//   "cores"             NeuronCores, one evaluation slot each: "0-31",
//                       "0,2-3", or "auto" (the default when absent): at
//                       daemon start `neuron-ls --json-output` counts them
//                       (devices x cores per device, restricted to
//                       NEURON_RT_VISIBLE_CORES when that is set;
//                       evaluators/nki/neuron_ls.hpp). A missing or failing
//                       neuron-ls stops the start with the fix. --check-config
//                       accepts "auto" without running neuron-ls.
//   "generation"        trn1 | trn2 | trn3 (default trn1): the roofline's
//                       constants (evaluators/nki/trainium.json)
//   "reference_python"  a Python with numpy for the trusted reference
//                       (default /usr/bin/python3)
//   "runner_dir"        the folder of runner.py and reference_runner.py
//                       (default /usr/share/accelopt/nki)
//   "profiler"          neuron-profile (default "neuron-profile" on PATH;
//                       /opt/aws/neuron/bin is added to the runner's PATH)
//   "work_dir"          where per-evaluation folders are made (default
//                       <state_dir>/cache/nki/work)
// Strict: unknown keys are errors naming the field. There is no key that
// selects a test stand-in.
//
// Thread safety: plain values.
#pragma once

#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::eval::nki {

struct NkiConfig {
  std::string python;
  std::vector<int> cores;     // empty while cores_spec is "auto" (ResolveAutoCores fills it)
  std::string cores_spec = "auto";
  std::string generation = "trn1";
  std::string reference_python = "/usr/bin/python3";
  std::string runner_dir = "/usr/share/accelopt/nki";
  std::string profiler = "neuron-profile";
  std::string work_dir;

  // The keys this adds to a backend's entry (besides slots, cache_dir, ...).
  static const std::vector<std::string>& Keys();
  bool auto_cores() const { return cores_spec == "auto"; }

  // `where` is "evaluators.nki".
  static Result<NkiConfig> FromJson(const json& j, const std::string& where);
};

}  // namespace accelopt::eval::nki
