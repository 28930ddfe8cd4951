// Static checks on an untrusted NKI kernel module (Python), before it is
// compiled. On a token stream of the module (comments dropped; string
// literals kept as their contents):
//   - reduced precision: no token float16, bfloat16, fp16, bf16, half,
//     tfloat32, tf32, float8*, fp8* — in code or in a string (dtype="bfloat16"),
//     as whole words: "float16" inside "bfloat16" is caught, "float32" is not
//     (the paper's text search for "float16" caught bfloat16 by accident; this
//     is the token-level check);
//   - imports only of numpy, math (pure arithmetic; a NKIBench baseline
//     imports it) and the NKI modules (neuronxcc.nki and below, `from
//     neuronxcc import nki`, the standalone `nki` package and below);
//     no relative imports;
//   - no file, process, network or timing access: the builtins open, exec,
//     eval, compile, __import__, getattr, setattr, delattr, globals, locals,
//     vars, input, breakpoint, any dunder name, the module names os, sys,
//     subprocess, socket, time, ... anywhere; numpy's file functions
//     (np.load, np.save, np.fromfile, np.memmap, ...) as attributes of a
//     numpy alias or imported from numpy; NKI's own launchers and timers
//     (.baremetal, .benchmark, .profile, .simulate_kernel) as attributes.
// A module that cannot be tokenized (an unterminated string) is refused.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "base/status.hpp"
#include "evaluators/nki/sdk.hpp"

namespace accelopt::eval::nki {

struct Violation {
  int line = 0;
  std::string rule;     // "reduced_precision" | "import" | "forbidden_name" | "syntax"
  std::string message;  // one line
};

// Every violation, in source order (empty: the module passes).
std::vector<Violation> FindViolations(const std::string& source);

// Ok, or kPermissionDenied with the first violation: "line 3: import of 'os'
// is not allowed (only numpy, math and the NKI modules)".
Status CheckKernelSource(const std::string& source);

// The same, for the host's SDK generation (evaluators/nki/sdk.hpp): on the
// kNki path (Neuron 2.28 and later) an import of neuronxcc or below is
// refused with the reason (the SDK makes neuronxcc.nki inside a kernel a
// compile error from 2.28; accelopt does not migrate Beta 1 kernels); on
// the kBeta1 path (up to 2.27, the runner uses nki.baremetal) an import of
// the nki package is refused (rule "sdk_generation").
std::vector<Violation> FindViolations(const std::string& source, NkiPath path);
Status CheckKernelSource(const std::string& source, NkiPath path);

}  // namespace accelopt::eval::nki
