// The NeuronCores of this host from `neuron-ls --json-output`, for
// `evaluators.nki.cores: "auto"` (the default; evaluators/nki/nki_config.hpp).
//
// The format read (AWS Neuron documentation, "Neuron LS User Guide",
// tools/neuron-sys-tools/neuron-ls: `--json-output, -j: Output in JSON
// format`): a JSON array with one object per Neuron device, holding the
// device's index "neuron_device" and its number of NeuronCores "nc_count"
// (other members, e.g. "bdf", "memory_size", "connected_to",
// "neuron_processes", are ignored). That the array holds "nc_count" per device is also what public
// parsers of this output read (e.g. Ray's Neuron accelerator detection);
// it was never checked against a real neuron-ls here (no Trainium host).
// Neuron 2.34 ended `--json-output` in favour of `--output-format json`
// ("Announcing end of support for the neuron-ls JSON output format starting
// with Neuron 2.34": "adds top-level fields for information that applies to
// more than one device, such as instance and UltraServer details"). Its
// layout is not documented beyond that: an object is read by content (the
// one member that is an array of device objects with "nc_count", and a
// top-level logical_neuroncore_config); anything else is refused naming its
// members. Unverified on a 2.34 host.
//
// Core ids are global, as NEURON_RT_VISIBLE_CORES counts them: the devices in
// order of "neuron_device", device d's cores after those of the devices before
// it (2 devices of 2 cores: 0,1 on device 0 and 2,3 on device 1). On trn2 with
// a logical-NeuronCore configuration (LNC=2) whether "nc_count" is the
// physical or the logical count is not documented in what we read: list the
// cores explicitly there.
//
// NEURON_RT_VISIBLE_CORES in the daemon's environment, when set and not
// empty, restricts "auto" to the cores it names (each must exist); each slot's
// runner still gets its own single core.
//
// Thread safety: the parsers are pure; DetectNeuronCores is reentrant when
// the Env is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"
#include "evaluators/nki/nki_config.hpp"

namespace accelopt::eval::nki {

// What to do when "auto" cannot find the cores (startup errors end with it).
extern const char* const kNeuronLsFix;

struct NeuronDevice {
  int index = 0;           // "neuron_device"
  int cores = 0;           // "nc_count" (logical cores where the device reports an LNC)
  std::optional<int> lnc;  // "logical_neuroncore_config" (1 or 2), when reported
};

struct NeuronInventory {
  std::vector<NeuronDevice> devices;  // sorted by index
  int total_cores = 0;
  std::optional<int> lnc;  // the devices' logical_neuroncore_config (all equal), when reported
  // "2 Neuron devices x 2 NeuronCores = 4" (or "... devices with 2+4 NeuronCores = 6").
  std::string Describe() const;
};

// Parses neuron-ls --json-output's stdout. kInvalidArgument naming what is
// wrong: not JSON, not an array (e.g. the newer --output-format json),
// no devices, a device without a positive integer "nc_count" (at most 64),
// a duplicate or negative "neuron_device", a "logical_neuroncore_config"
// other than 1 or 2 or differing between devices, "neuroncore_ids" that is
// not an array of nc_count integers.
Result<NeuronInventory> ParseNeuronLsJson(const std::string& text);

// The cores "auto" uses: every core of `inventory`, or those that
// `visible_cores` (NEURON_RT_VISIBLE_CORES, "0-3" / "0,2") names when it is
// set and not empty; kInvalidArgument when it names a core that does not exist.
Result<std::vector<int>> AutoCores(const NeuronInventory& inventory, const std::optional<std::string>& visible_cores);

// The neuron-ls found in the folders of `path` (a PATH value), checked in
// order through the Env; "" when none has it. (A child's PATH does not steer
// execvp's search, which reads the parent's: the program is found here.)
std::string FindNeuronLs(Env* env, const std::string& path);

// Runs `neuron-ls --json-output` (found by FindNeuronLs in `path` plus
// /opt/aws/neuron/bin, where aws-neuronx-tools installs it; a clean
// environment with that PATH; 30 s at most) and returns its stdout.
// kNotFound when it is not found, kUnavailable when it fails (its exit and
// last line of stderr).
// Tries `--json-output` (up to 2.33), then `--output-format json` (2.34);
// `*flag` (optional) says which answered.
Result<std::string> RunNeuronLs(Env* env, const std::string& path, std::string* flag = nullptr);

// When `config->cores_spec` is "auto": runs neuron-ls with the process's PATH
// (through `env`), applies NEURON_RT_VISIBLE_CORES (from `env`) and sets
// `config->cores`, and `config->lnc` from the devices' logical core config
// when `logical_nc_config` is "auto" (1 when neuron-ls reports none); an
// explicit logical_nc_config that differs from the one neuron-ls reports is
// kFailedPrecondition (every load would fail). `*how` (optional) says what
// was found. With an explicit core list neuron-ls is not run and "auto"
// means LNC 1 (set logical_nc_config on trn2). Errors name the cause;
// callers append kNeuronLsFix.
Status ResolveAutoCores(NkiConfig* config, Env* env, std::string* how = nullptr);

}  // namespace accelopt::eval::nki
