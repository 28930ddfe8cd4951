// The daemon's `evaluators.nki` settings (config/acceloptd.json; presets in
// config/nki.json):
//   "python"            the Neuron SDK's interpreter (required), e.g.
//                       /opt/aws_neuronx_venv_pytorch/bin/python
//   "cores"             NeuronCores, one evaluation slot each ("0-31",
//                       "0,2-3"; required: auto-detection with neuron-ls is
//                       not built, say which cores the daemon may use)
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
  std::vector<int> cores;
  std::string cores_spec;
  std::string generation = "trn1";
  std::string reference_python = "/usr/bin/python3";
  std::string runner_dir = "/usr/share/accelopt/nki";
  std::string profiler = "neuron-profile";
  std::string work_dir;

  // The keys this adds to a backend's entry (besides slots, cache_dir, ...).
  static const std::vector<std::string>& Keys();
  // `where` is "evaluators.nki".
  static Result<NkiConfig> FromJson(const json& j, const std::string& where);
};

}  // namespace accelopt::eval::nki
