// A Beta 1 kernel (neuronxcc.nki, NKIBench's baselines) rewritten for the
// nki package (Beta 2 / NKI 0.2.0 and later), for hosts whose SDK runs
// kernels through the nki package (evaluators/nki/sdk.hpp). Only the
// rewrites the Neuron documentation spells out are made, each listed in
// Migration::rewrites with its source:
//
//   imports   "Announcing the removal of the neuronxcc.nki namespace from
//             neuronx-cc in Neuron 2.34", "What you must do":
//               import neuronxcc.nki as nki           -> import nki
//               import neuronxcc.nki.language as nl   -> import nki.language as nl
//               import neuronxcc.nki.isa as nisa      -> import nki.isa as nisa
//             (and `from neuronxcc import nki`, `from neuronxcc.nki import
//             language, isa`, the same modules);
//   load/store  "NKI Migration Guide from NKI 0.1.0 to NKI 0.2.0", "What
//             features in neuronxcc.nki.* are not available in nki.*?":
//             "nl.load and nl.store have been removed, use nisa.dma_copy";
//             with "Explicit dst parameter is now required for nki.isa
//             instructions and is always the first argument":
//               nl.store(D, value=V)  -> nisa.dma_copy(dst=D, src=V)
//               X = nl.load(S)        -> X = nl.ndarray(S.shape, dtype=S.dtype, buffer=nl.sbuf)
//                                        nisa.dma_copy(dst=X, src=S)
//             (a statement of its own only; `import nki.isa as nisa` is
//             added when the kernel has no nki.isa import).
//
// Refused, naming the construct and the guide's section, is what the guide
// says has no direct equivalent: nl.load inside an expression, arange /
// mgrid ("Update indexing syntax for mgrid and arange"), the mask parameter
// ("Deprecation of masking"), par_dim block dimensions ("Translation of
// Block Dimensions"), nki.jit(mode=...) on sub-kernels ("Remove nki.jit
// decorator on sub-kernels"), any other neuronxcc module. Whether the
// rewritten kernel compiles is the NKI compiler's to say (unverified here:
// no SDK); nl.* compute calls are left as they are.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "base/status.hpp"

namespace accelopt::eval::nki {

struct Migration {
  std::string source;                 // the rewritten kernel
  std::vector<std::string> rewrites;  // "line 2: import neuronxcc.nki as nki -> import nki (2.34 announcement)"
};

// True when the kernel imports anything under neuronxcc (a Beta 1 kernel).
bool UsesNeuronxccNki(const std::string& source);

// kFailedPrecondition naming the line, the construct and the guide's
// section when the kernel cannot be migrated by the rewrites above.
Result<Migration> MigrateBeta1ToNki(const std::string& source);

}  // namespace accelopt::eval::nki
