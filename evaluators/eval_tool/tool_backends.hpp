// accelopt-eval's backends, one row each (ninja's kTools[] style): what
// run, baseline, prompts and calibrate need of a backend. The subcommands
// look a problem's backend name up in this table and never switch on it;
// a new backend adds its flags to BackendFlags and one row to
// tool_backends.cpp (docs/architecture.md, "Adding a backend").
//
// A maker that cannot make its backend says why in its Status: an
// InvalidArgument is a bad option of the command line and nothing else
// (the caller exits 2); any other code is a backend that cannot run here
// (exit 3). Makers convert the statuses of the parts they call so that
// only their own option checks return InvalidArgument. MakerExit prints it.
//
// Thread safety: the table is immutable; the functions run on accelopt-eval's
// one thread.
#pragma once

#include <boost/program_options.hpp>

#include <memory>
#include <span>
#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "evaluators/backend.hpp"
#include "evaluators/eval_tool/common.hpp"

namespace accelopt::eval_tool {

// The backends' own options of run (and the nki generation of prompts).
struct BackendFlags {
  std::string nki_python = "auto", nki_cores = "0", nki_generation = "trn1";
  std::string nki_runner_dir = "/usr/share/accelopt/nki";
  bool nki_simulate = false;
  // --allow-test-stand-in: accept the test-only Neuron SDK stand-in's
  // results, labelled (evaluators/nki/evaluate.hpp); never on a real host.
  bool allow_test_stand_in = false;
  bool startup_check = true;  // nki: NkiBackend::StartupTimingCheck when made (not for a Slurm job)
  std::string triton_python = "/usr/bin/python3";
};

struct ToolBackend {
  const char* name;  // a problem.json's "backend"
  // Adds this backend's options of run to `d`, bound to `f` (null: none).
  void (*add_run_flags)(boost::program_options::options_description& d, BackendFlags& f);
  // The backend for run and baseline (`c.root`: where relative problem
  // folders are).
  Result<std::unique_ptr<eval::Backend>> (*make)(Env* env, const Common& c, const BackendFlags& f);
  // run --compare is built for it.
  bool compare;
  // The default file of the hardware facts campaigns get, in `cache_dir`
  // (prompts --calibration's default); empty: the facts come from `facts`.
  std::string (*facts_file)(const std::string& cache_dir);
  // The hardware facts as the daemon hands them to campaigns: of the file
  // `path` (prompts --calibration, or facts_file's), or, with `path` empty,
  // the backend's own (nki: the generation's).
  Result<json> (*facts)(Env* env, const std::string& path, const BackendFlags& f);
  // calibrate --backend NAME (null: it has nothing to calibrate): the exit code.
  int (*calibrate)(Env* env, const Common& c, bool force);
};

std::span<const ToolBackend> ToolBackends();

// The row named `name`; null (and the names there are on stderr, for
// `what`) when none is.
const ToolBackend* FindToolBackend(const std::string& name, const std::string& what);

// Every row's run options, bound to `f`.
void AddRunFlags(boost::program_options::options_description& d, BackendFlags& f);

// Prints a maker's refusal ("accelopt-eval: ..."); the exit code: 2 for an
// InvalidArgument, else 3.
int MakerExit(const Status& st);

// The makers and calibrations the rows name (common.cpp, calibrate.cpp,
// nki_commands.cpp).
using Maker = Result<std::unique_ptr<eval::Backend>>;
Maker MakeCpuBackend(Env* env, const Common& c, const BackendFlags& f);
Maker MakeCudaBackend(Env* env, const Common& c, const BackendFlags& f);
Maker MakeTritonBackend(Env* env, const Common& c, const BackendFlags& f);
Maker MakeNkiBackend(Env* env, const Common& c, const BackendFlags& f);
int CalibrateCpu(Env* env, const Common& c, bool force);
int CalibrateCuda(Env* env, const Common& c, bool force);

}  // namespace accelopt::eval_tool
