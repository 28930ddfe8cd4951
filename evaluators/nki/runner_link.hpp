// The judge's side of the nki runner and reference processes
// (evaluators/nki/runner.py, reference_runner.py): the job file they read,
// the processes they run as (own process group, limits, timeout, no
// network, the NeuronCore environment), the framed records they return on
// their stdout, and neuron-profile, which the judge runs itself on the
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
  std::string python;                    // evaluators.nki.python: the Neuron SDK's interpreter
  std::string reference_python = "python3";  // a Python with numpy for the trusted reference
  std::string runner_script;             // evaluators/nki/runner.py (installed: share/accelopt/nki/)
  std::string reference_script;          // evaluators/nki/reference_runner.py
  std::string profiler = "neuron-profile";
  std::chrono::milliseconds timeout{180000};  // per process (the paper's 180 s per candidate)
  uint64_t address_space_bytes = 0;      // RLIMIT_AS of the runner; 0: none (the Neuron runtime maps a lot)
  // Added to every process's environment (PATH and PYTHONPATH of a venv;
  // tests point these at tests/fakes/nki).
  std::map<std::string, std::string> env;
};

// One framed record: a JSON header line, then header.nbytes raw bytes.
struct RunnerRecord {
  json header;
  std::string payload;
};

// kInvalidArgument when the stream is not well framed (a line that is not a
// JSON object with a string "type", a payload shorter than nbytes, more than
// 100000 records).
Result<std::vector<RunnerRecord>> ParseRecords(std::string_view data);

// The untrusted runner on NeuronCore `core`: NEURON_RT_VISIBLE_CORES=core,
// NEURON_RT_NUM_CORES=1, NEURON_CC_FLAGS=--auto-cast=none, a clean
// environment (HOME=work_dir, the settings' env), private network, no core
// dumps, 64 open files... and the timeout.
ProcessSpec RunnerProcess(const RunnerSettings& s, const std::string& job_file, int core, const std::string& work_dir,
                          const std::atomic<bool>* cancel);
// The trusted reference process (no NeuronCore).
ProcessSpec ReferenceProcess(const RunnerSettings& s, const std::string& job_file, const std::string& work_dir,
                             const std::atomic<bool>* cancel);
// `neuron-profile view --output-format summary-json -n NEFF -s NTFF`.
ProcessSpec ProfilerProcess(const RunnerSettings& s, const std::string& neff, const std::string& ntff,
                            const std::string& work_dir, const std::atomic<bool>* cancel);

}  // namespace accelopt::eval::nki
