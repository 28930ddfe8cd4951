// Which Neuron SDK this host has, and so which of the two ways of running
// an NKI kernel the nki backend uses (docs/evaluation.md, "Neuron SDK
// generations"):
//
//   kBeta1  Neuron up to 2.27: `neuronxcc.nki` (NKI Beta 1), the kernel
//           run with `nki.baremetal(..., save_neff_name, save_trace_name,
//           additional_compile_opt)`: the AccelOpt paper's path, kept to
//           reproduce it;
//   kNki    Neuron 2.28 to 2.33: the standalone `nki` package (NKI Beta 2 /
//           0.2.0 and later, its own compiler): a `@nki.jit` kernel called
//           with numpy arrays compiles and runs standalone; `neuronxcc.nki`
//           inside a kernel is a compile error from 2.28 on (Neuron docs,
//           "Announcing the removal of the neuronxcc.nki namespace ... in
//           Neuron 2.34"), so such a kernel is refused before it runs, with
//           the reason. No Beta 1 -> Beta 2 migration is attempted.
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
// Supported: up to 2.27 (kBeta1) and 2.28..2.33 (kNki). 2.34 and later are
// refused at start, naming the version found and those supported (2.34
// also replaces neuron-ls --json-output, which neuron_ls.hpp reads).
//
// Thread safety: pure functions, except ProbeSdk (reentrant when the Env is).
#pragma once

#include <map>
#include <optional>
#include <string>

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
};

enum class NkiPath { kBeta1, kNki };

// The decision, and why.
struct SdkChoice {
  NkiPath path = NkiPath::kBeta1;
  int release_minor = 0;             // 27 for Neuron 2.27; 0: "2.27 or older", not known exactly
  std::string release_from;          // "nki 0.3.0", "aws-neuronx-tools 2.28.0", ...
  std::string profiler = "neuron-profile";  // neuron-profile | neuron-explorer
  bool stand_in = false;
  // "Neuron 2.29 (nki 0.3.0): the nki package path (NKI 0.3.0), neuron-explorer"
  std::string Describe() const;
  std::string Release() const;       // "2.29" or "2.27 or older"
  std::string PathName() const;      // "neuronxcc" | "nki"
};

// The supported range, for messages.
extern const char* const kSupportedSdks;
inline constexpr int kNewestSupportedMinor = 33;

// dpkg's status file (Package:/Status:/Version: stanzas) -> installed
// package -> version; packages not "install ok installed" are left out.
std::map<std::string, std::string> ParseDpkgStatus(const std::string& text);

// The minor release ("2.29" -> 29) a component version means, by the rules
// above; nullopt when it says nothing (an unknown numbering).
std::optional<int> ReleaseFromNki(const std::string& version);
std::optional<int> ReleaseFromTools(const std::string& version);
std::optional<int> ReleaseFromRuntime(const std::string& version);

// The choice, or kFailedPrecondition naming the versions found and those
// supported: nothing of NKI importable; 2.34 or newer; a host whose tools
// say 2.28 or newer while the interpreter has no nki package.
Result<SdkChoice> ChooseSdk(const SdkVersions& v);

struct SdkProbeOptions {
  std::string python;                                  // evaluators.nki.python
  std::map<std::string, std::string> env;              // the runner's extra env (tests: the stand-in's)
  std::string dpkg_status = "/var/lib/dpkg/status";
};

// Runs the interpreter once (a clean environment plus `env`) to read the
// Python side, reads dpkg's status for the rest. Never fails: what it could
// not read is nullopt (python_error says why the interpreter did not answer).
SdkVersions ProbeSdk(const SdkProbeOptions& options, Env* env);

// "neuronx-cc 2.21.3, neuronxcc.nki, nki 0.3.0, runtime 2.31.24.0, tools 2.29.0"
std::string DescribeVersions(const SdkVersions& v);

struct NkiConfig;
// At start (daemon, accelopt-eval run): probes config->python (plus
// `runner_env`) and sets config->sdk; `*how` (optional) says what was found
// and which path is used. kFailedPrecondition from ChooseSdk otherwise.
Status ResolveSdk(NkiConfig* config, Env* env, const std::map<std::string, std::string>& runner_env = {},
                  std::string* how = nullptr, const std::string& dpkg_status = "/var/lib/dpkg/status");

}  // namespace accelopt::eval::nki
