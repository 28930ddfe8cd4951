// The judge's side of the nki runner and reference processes
// (evaluators/nki/runner.py, reference_runner.py): the job file they read,
// the processes they run as (own process group, limits, timeout, no
// network, the NeuronCore environment), the records they return on their
// stdout (JSON lines; outputs are files in the evaluation's folder that the
// records name, so nothing is capped or truncated), and the profiler
// (neuron-profile or neuron-explorer), which the judge runs itself on the
// artifacts a runner lists.
//
// Thread safety: pure functions (the processes are run by the caller
// through Env::RunProcess).
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "base/subprocess.hpp"

namespace accelopt::eval::nki {

struct RunnerSettings {
  std::string python;                         // evaluators.nki.python: the Neuron SDK's interpreter
  std::string reference_python = "python3";   // a Python with numpy for the trusted reference
  std::string runner_script;                  // evaluators/nki/runner.py (installed: share/accelopt/nki/)
  std::string reference_script;               // evaluators/nki/reference_runner.py
  std::string profiler = "neuron-profile";    // or neuron-explorer (the same view command)
  std::string sdk_path = "neuronxcc";         // "neuronxcc" | "nki" (evaluators/nki/sdk.hpp)
  int lnc = 1;                                // logical NeuronCore config: compile flag and runtime
  std::string lnc_call = "compile_flag";      // compile_flag | bracket | env (SdkChoice::lnc_call)
  bool inspect_warmup = false;                // NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP usable (2.33+)
  bool simulate = false;                      // nki.simulate on the CPU: correctness only, no time (nki path)
  std::chrono::milliseconds timeout{180000};  // per process (the paper's 180 s per candidate)
  uint64_t address_space_bytes = 0;           // RLIMIT_AS of the runner; 0: none (the Neuron runtime maps a lot)
  // Added to every process's environment (PATH and PYTHONPATH of a venv;
  // tests point these at tests/fakes/nki).
  std::map<std::string, std::string> env;
};

// One record: a JSON line. Output records name a file ("file", a plain
// name in the job's output folder) of "nbytes" bytes.
struct RunnerRecord {
  json header;
};

// kInvalidArgument when the stream is not well formed (a line that is not a
// JSON object with a string "type", a last line without its newline, more
// than 100000 records) or a field the judge reads is of another type
// (case, index, round, iteration, elements, nbytes: integers; dtype, file,
// run, stage, message, neff, ntff: strings; stand_in: a bool).
Result<std::vector<RunnerRecord>> ParseRecords(std::string_view data);

// The compile options of the job: "--disable-dge --logical-nc-config=<lnc>"
// (the paper's, with the runtime's LNC).
std::string CompileOptions(const RunnerSettings& s);

// The untrusted runner on NeuronCore `core`: NEURON_RT_VISIBLE_CORES=core,
// NEURON_RT_NUM_CORES=1, NEURON_LOGICAL_NC_CONFIG=lnc,
// NEURON_CC_FLAGS=--auto-cast=none, a clean environment (HOME=work_dir, the
// settings' env), private network, no core dumps, 256 open files... and
// the timeout. Its stdout carries records only (1 MiB; outputs are files).
// With `inspect_dir` (the nki path's timed processes): the runtime's
// inspect variables are in its environment from the start
// (NEURON_RT_INSPECT_ENABLE=1, NEURON_RT_INSPECT_DEVICE_PROFILE=1,
// NEURON_RT_INSPECT_OUTPUT_DIR=inspect_dir, and, when `skip_warmup` > 0,
// NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP=skip_warmup): Neuron Explorer
// "Environment Variables" (v2.33.1): "Set them before the workload starts".
ProcessSpec RunnerProcess(const RunnerSettings& s, const std::string& job_file, int core, const std::string& work_dir,
                          const std::atomic<bool>* cancel, const std::string& inspect_dir = "", int skip_warmup = 0);
// The trusted reference process (no NeuronCore).
ProcessSpec ReferenceProcess(const RunnerSettings& s, const std::string& job_file, const std::string& work_dir,
                             const std::atomic<bool>* cancel);
// `<profiler> view --output-format summary-json -n NEFF -s NTFF`
// (neuron-profile and neuron-explorer take the same command).
ProcessSpec ProfilerProcess(const RunnerSettings& s, const std::string& neff, const std::string& ntff,
                            const std::string& work_dir, const std::atomic<bool>* cancel);

}  // namespace accelopt::eval::nki
