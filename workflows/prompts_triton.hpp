// The triton runner's prompt set (backend_prompts.hpp), written from what the
// triton backend does and checks: evaluators/triton/static_check.hpp (what
// is refused), evaluators/triton/harness/runner.py and docs/evaluation.md
// ("triton runner": flat fp32 CUDA tensors, the current stream, NaN-filled
// outputs, CUDA-event timing with the L2 flushed between calls). The GPU
// facts are the cuda calibration's (CudaHardwareProse). No campaign can run
// on triton yet (the daemon has no evaluators.triton); the set exists so
// that `accelopt-eval prompts` shows what its agents would be told.
//
// Thread safety: pure functions; the set is immutable.
#pragma once

#include <string>

#include "base/json.hpp"
#include "workflows/backend_prompts.hpp"

namespace accelopt::workflows {

const BackendPrompts& TritonPrompts();

// "def silu(x, out, M, N)" with a comment line per kind of parameter, from
// problem.json's params.
std::string TritonSignature(const json& problem);

}  // namespace accelopt::workflows
