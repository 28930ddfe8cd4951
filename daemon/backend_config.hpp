// The settings of one evaluation backend, read from "evaluators.<name>" by
// its module's parse (daemon/backend_module.hpp): the fields the built-in
// backends use, and the section as written for any other module.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "evaluators/nki/nki_config.hpp"
#include "evaluators/slurm/slurm_options.hpp"

namespace accelopt::daemon {

struct BackendConfig {
  int slots = 1;          // evaluations at once on this backend
  std::string cache_dir;  // default: <state_dir>/cache/<backend>
  // CPUs of each slot (cpu backend): slot_cores[i] for slot i. Default
  // (empty): one slot uses every CPU; several slots split the daemon's CPUs
  // into equal contiguous parts (SlotCores in daemon.cpp).
  std::vector<std::vector<int>> slot_cores;
  // Accept a calibration measured on a busy machine (recorded as "forced")
  // instead of refusing it (evaluators/cpu/calibration.hpp). For test
  // machines whose figures nobody compares.
  bool calibration_force_busy = false;
  // A busy calibration is measured this many times before it is refused,
  // calibration_retry_wait_s apart (CalibrationOptions::attempts and
  // retry_wait_s; 1..10 and 0..3600).
  int calibration_attempts = 3;
  double calibration_retry_wait_s = 5;
  // When the start's calibration is refused (busy) and no saved one of this
  // hardware fingerprint exists, the daemon serves anyway and measures again
  // this long after each refusal; cpu evaluations wait meanwhile
  // (daemon/backends/deferred_calibration.hpp). 1..86400.
  double calibration_retry_after_s = 60;
  // cpu backend: the size limit of the judge's reference cache under
  // cache_dir (evaluators/judge/reference_cache.hpp), in GiB; 0: no limit.
  double reference_cache_max_gb = 20;
  // Where evaluations run: "executor": {"kind": "local"} (the default: child
  // processes of the daemon) or {"kind": "slurm", ...} (one Slurm job per
  // evaluation, evaluators/slurm/slurm_backend.hpp; `max_jobs` replaces
  // `slots`, the cores are the job's, calibration happens on the nodes).
  std::optional<eval::slurm::SlurmOptions> slurm;
  // triton backend only (required): the absolute path of the interpreter
  // with torch and triton that runs the runner (evaluators/triton/).
  std::string python;
  // cuda and triton backends: the CUDA device ids they evaluate on, one slot each
  // (CUDA_VISIBLE_DEVICES=<id> for that slot's runners). Default [0];
  // `slots`, when also given, must equal its length.
  std::vector<int> devices;
  // evaluators.nki: the Neuron SDK's interpreter, the NeuronCores (one slot
  // each; `slots` is their number, 0 for "cores": "auto" until the daemon's
  // start runs neuron-ls) ... (evaluators/nki/nki_config.hpp).
  std::optional<eval::nki::NkiConfig> nki;
  // The section as written, for a module's own keys (a backend added with
  // RegisterBackendModule keeps its settings here).
  json section = json::object();
};

}  // namespace accelopt::daemon
