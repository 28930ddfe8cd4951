// Which Neuron SDK this host has, and so which of the two ways of running
// an NKI kernel the nki backend uses (docs/evaluation.md, "Neuron SDK
// generations"):
//
//   kBeta1  Neuron up to 2.27: `neuronxcc.nki` (NKI Beta 1), the kernel
//           run with `nki.baremetal(..., save_neff_name, save_trace_name,
//           additional_compile_opt)`: the AccelOpt paper's path, kept to
//           reproduce it;
//   kNki    Neuron 2.28 and later: the standalone `nki` package (NKI Beta 2 /
//           0.2.0 and later, its own compiler): a `@nki.jit` kernel called
//           with numpy arrays compiles and runs standalone. The docs
//           disagree on neuronxcc.nki in 2.28..2.33 (the 2.28/2.29 NKI
//           notes: removal "postponed"; "Announcing the removal of the
//           neuronxcc.nki namespace ... in Neuron 2.34": a compile error
//           "in Neuron 2.28 and later"): on this path a Beta 1 kernel is
//           migrated (evaluators/nki/migrate.hpp), which runs under either
//           reading.
//
// The release is read from the installed versions (Neuron docs, "Neuron
// Component Release Notes" of each release):
//   - the `nki` package 0.N.* -> Neuron 2.(26+N) (0.2.0 in 2.28, 0.3.0 in
//     2.29, 0.4.0 in 2.30, 0.6.0 in 2.32, 0.7.0 in 2.33; "Beta 2" 0.1.* in
//     2.27);
//   - else aws-neuronx-tools 2.Y.* -> Neuron 2.Y (2.28.0 in 2.28, 2.32.28.0
//     in 2.32, 2.33.38.0 in 2.33);
//   - else the runtime (aws-neuronx-runtime-lib) 2.R.* -> Neuron 2.(R-2)
//     (2.29.40.0 in 2.27, 2.30.50.0 in 2.28, 2.31.24.0 in 2.29, 2.32.31.0 in
//     2.30, 2.34.10.0 in 2.32, 2.35.30.0 in 2.33);
//   - else, with only `neuronxcc.nki` importable: "2.27 or older".
// neuronx-cc's own version is reported but not mapped (its numbering does
// not follow the SDK's). Tools and runtime versions come from dpkg's status
// file (Ubuntu, the documented install; other hosts: the Python side alone).
//
// The profiler the SDK ships: neuron-profile up to 2.28, neuron-explorer
// from 2.29 (neuron-profile reached end of support in 2.29 and is not
// shipped from 2.30); both take `view -n file.neff -s profile.ntff
// --output-format summary-json` (Neuron docs, "Migration Guide from Neuron
// Profiler to Neuron Explorer").
//
// Chosen by what the host can do, not by a list of versions (issue 38):
// the probe reports which namespaces import (neuronxcc.nki and whether it
// has nki.baremetal; the nki package, its nki.jit and nki.simulate), which
// profilers answer on PATH (neuron-explorer, neuron-profile), and the
// release the versions name. The nki package path is used wherever the nki
// package imports and the release is 2.28 or later (or unknown/newer); the
// neuronxcc.nki path where only neuronxcc.nki (with baremetal) imports, or
// up to 2.27. The profiler is the one that answers, preferring the
// release's (neuron-explorer from 2.29). A release newer than the newest
// accelopt knows (kNewestKnownMinor, 2.34) starts with a warning naming
// what was probed (SdkChoice::warnings), never a refusal; only "nothing
// of NKI imports" (or 2.28+ tools without the nki package) is refused.
//
// The probe tolerates a slow cold first import (the NKI FAQ: a first
// import can take about a minute; kProbeTimeout is 5 minutes) and lines
// that the SDK prints while importing: the probe writes its answer on the
// original stdout after pointing fd 1 at stderr, and the judge reads the
// last line that is a JSON object carrying "accelopt_probe".
//
// How the kernel's LNC is set (SdkChoice::lnc_call): "compile_flag" on the
// neuronxcc.nki path (--logical-nc-config in additional_compile_opt);
// "bracket" on 2.28..2.32 (nki.jit docs of 2.31: "The LNC (Logical
// NeuronCore) degree can be set at the callsite using bracket syntax:
// kernel[lnc](args). The default is LNC=1. The LNC value must match the
// NEURON_LOGICAL_NC_CONFIG environment variable ... Mismatching the two will
// cause a runtime error"); "env" from 2.33 (nki.jit docs of 2.33.1:
// "Configure the LNC (Logical NeuronCore) degree by setting the
// NEURON_LOGICAL_NC_CONFIG environment variable to 1 or 2 before invoking
// the kernel").
//
// Device-profile capture on the nki path (SdkChoice::inspect_warmup): the
// runtime's inspect variables are read when the runtime starts and capture
// the first execution per NEFF per core (Neuron Explorer "Environment
// Variables", NEURON_RT_INSPECT_DEVICE_PROFILE "1 or model — Captures
// first execution per NEFF per core"); NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP
// ("the first N executions of each model are skipped and only the
// (N+1)-th execution is profiled") is documented from the 2.33 pages:
// from 2.33 the AccelOpt warm-ups run in the captured process before the
// captured execution; before 2.33 the captured execution is the process's
// first (the result says so).
//
// Thread safety: pure functions, except ProbeSdk (reentrant when the Env is).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"

namespace accelopt::eval::nki {

// What is installed; each nullopt when not found.
struct SdkVersions {
  std::optional<std::string> neuronx_cc;  // neuronx-cc (neuronxcc.__version__ / its distribution)
  bool neuronxcc_nki = false;             // `import neuronxcc.nki` works
  std::optional<std::string> nki;         // the nki package's version
  std::optional<std::string> runtime;     // aws-neuronx-runtime-lib (dpkg)
  std::optional<std::string> tools;       // aws-neuronx-tools (dpkg)
  bool stand_in = false;                  // tests/fakes/nki (never the SDK)
  std::string python_error;               // why the probe could not run, when it could not
  // Capabilities (issue 38): what imports and what answers.
  bool neuronxcc_baremetal = false;    // neuronxcc.nki.baremetal exists
  bool nki_jit = false;                // nki.jit exists
  bool nki_simulate = false;           // nki.simulate exists (NKI 0.3.0, Neuron 2.29+)
  std::string neuronxcc_import_error;  // the last line of the exception, when neuronxcc.nki did not import
  std::string nki_import_error;        // ... when the nki package did not import
  std::vector<std::string> profilers;  // of neuron-explorer, neuron-profile: those that answer (full paths)
  bool probed_profilers = false;       // false: not looked for (the profiler is chosen by the release)
  bool probed = false;                 // the interpreter answered the probe (capabilities above are known)
};

enum class NkiPath { kBeta1, kNki };

// The decision, and why.
struct SdkChoice {
  NkiPath path = NkiPath::kBeta1;
  int release_minor = 0;                    // 27 for Neuron 2.27; 0: "2.27 or older", not known exactly
  std::string release_from;                 // "nki 0.3.0", "aws-neuronx-tools 2.28.0", ...
  std::string profiler = "neuron-profile";  // neuron-profile | neuron-explorer (or the path that answered)
  bool stand_in = false;
  std::string lnc_call = "compile_flag";  // compile_flag | bracket | env (above)
  bool inspect_warmup = false;            // NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP usable (2.33+)
  bool newer_than_known = false;          // started on capabilities alone
  bool beta1_available = false;       // neuronxcc.nki with nki.baremetal imports (Beta 1 kernels can run as they are)
  std::vector<std::string> warnings;  // said at start and by doctor
  // "Neuron 2.29 (nki 0.3.0): the nki package path (NKI 0.3.0), neuron-explorer"
  std::string Describe() const;
  std::string Release() const;   // "2.29" or "2.27 or older"
  std::string PathName() const;  // "neuronxcc" | "nki"
};

// The releases accelopt was written against, for messages.
extern const char* const kSupportedSdks;
inline constexpr int kNewestKnownMinor = 34;
// How long the interpreter may take to answer the probe (a cold first import).
inline constexpr int kProbeTimeoutMs = 300000;

// dpkg's status file (Package:/Status:/Version: stanzas) -> installed
// package -> version; packages not "install ok installed" are left out.
std::map<std::string, std::string> ParseDpkgStatus(const std::string& text);

// The minor release ("2.29" -> 29) a component version means, by the rules
// above; nullopt when it says nothing (an unknown numbering).
std::optional<int> ReleaseFromNki(const std::string& version);
std::optional<int> ReleaseFromTools(const std::string& version);
std::optional<int> ReleaseFromRuntime(const std::string& version);

// The choice, or kFailedPrecondition naming the versions found and the
// real cause: nothing of NKI importable (with the import errors); a host
// whose tools say 2.28 or newer while the interpreter has no nki package.
Result<SdkChoice> ChooseSdk(const SdkVersions& v);

struct SdkProbeOptions {
  std::string python;                      // evaluators.nki.python
  std::map<std::string, std::string> env;  // the runner's extra env (tests: the stand-in's)
  std::string dpkg_status = "/var/lib/dpkg/status";
  int timeout_ms = kProbeTimeoutMs;
  bool probe_profilers = true;  // run `<profiler> --help` for each (PATH from env, plus /opt/aws/neuron/bin)
};

// Runs the interpreter once (a clean environment plus `env`) to read the
// Python side, reads dpkg's status for the rest. Never fails: what it could
// not read is nullopt (python_error says why the interpreter did not answer).
SdkVersions ProbeSdk(const SdkProbeOptions& options, Env* env);

// The program `name` found in the folders of `path` (a PATH value), checked
// in order through the Env; "" when none has it.
std::string FindTool(Env* env, const std::string& path, const std::string& name);

// "neuronx-cc 2.21.3, neuronxcc.nki, nki 0.3.0, runtime 2.31.24.0, tools 2.29.0"
std::string DescribeVersions(const SdkVersions& v);

struct NkiConfig;
// At start (daemon, accelopt-eval run): probes config->python (plus
// `runner_env`) and sets config->sdk; `*how` (optional) says what was found
// and which path is used. kFailedPrecondition from ChooseSdk otherwise.
Status ResolveSdk(NkiConfig* config, Env* env, const std::map<std::string, std::string>& runner_env = {},
                  std::string* how = nullptr, const std::string& dpkg_status = "/var/lib/dpkg/status");

}  // namespace accelopt::eval::nki
