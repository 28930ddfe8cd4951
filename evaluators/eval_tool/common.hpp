// What accelopt-eval's subcommands share: the common options (-o, --cache-dir,
// --root, --compiler, the evaluation settings, --force-busy), the cache
// folder, and the cpu backend's options and calibration (the backends
// themselves: tool_backends.hpp).
//
// Messages go to stderr prefixed "accelopt-eval: "; every file, variable and
// process goes through the Env main() chose.
//
// Thread safety: none needed (one thread).
#pragma once

#include <boost/program_options.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"
#include "evaluators/cpu/calibration.hpp"
#include "evaluators/cpu/cpu_backend.hpp"
#include "evaluators/protocol.hpp"

namespace accelopt::eval_tool {

// $ACCELOPT_CACHE_DIR, else $XDG_CACHE_HOME/accelopt, else ~/.cache/accelopt.
std::string DefaultCacheDir(Env* env);

// `path`, relative to `root` unless absolute.
std::filesystem::path Under(const std::string& root, const std::string& path);

// printf's "%.*f".
std::string Fixed(double v, int prec);

struct Common {
  Env* env = nullptr;  // main's Env::Default(): every file, variable and process goes through it
  std::string output = "table", cache_dir, root = ".", compiler = "g++";
  std::string settings_json, seeds;
  double timeout = 0, min_time = 0;
  int max_rounds = 0, threads = -1;
  bool force_busy = false;
};

// Parses `args` into the variables `d` binds (`pos`: the positional
// arguments' names; without it, positional arguments are ignored). True when
// --help was given: `d` has been printed on stdout and the command returns 0.
// Throws boost::program_options::error on a bad option (main() says so, exit 2).
bool ParseShowingHelp(const std::vector<std::string>& args, const boost::program_options::options_description& d,
                      const boost::program_options::positional_options_description* pos = nullptr);

// Adds the common options (and --help) to `d`, bound to `c`.
void AddCommon(boost::program_options::options_description& d, Common& c);

// The settings of --settings JSON with --timeout, --min-time, --max-rounds,
// --threads and --seeds over it.
Result<eval::EvalSettings> MakeSettings(const Common& c);

// The cpu backend's options of `c` (the cache folder defaulted), without a
// calibration.
eval::cpu::CpuBackendOptions BackendOptions(const Common& c);
eval::cpu::CalibrationOptions CalibrationOpts(const Common& c, const eval::cpu::CpuBackendOptions& o);

}  // namespace accelopt::eval_tool
