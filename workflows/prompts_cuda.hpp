// The cuda backend's prompt set (backend_prompts.hpp), written from what the
// cuda backend does and checks: evaluators/cuda/toolchain.hpp (nvcc flags),
// evaluators/cuda/static_check.hpp (what is refused) and the runner contract
// of docs/evaluation.md ("cuda backend": device pointers, the default
// stream, NaN-filled outputs, CUDA-event timing with the L2 flushed between
// calls). No campaign has run on cuda yet (nothing has run on a GPU); the
// set exists so that `accelopt-eval prompts` shows what a cuda campaign's
// agents would be told, and is reviewed with the checks it describes.
//
// Thread safety: pure functions; the set is immutable.
#pragma once

#include <string>

#include "workflows/backend_prompts.hpp"

namespace accelopt::workflows {

const BackendPrompts& CudaPrompts();

// "nvcc -std=c++17 -O3 -arch=<arch> --cudart shared -Xcompiler -fPIC -shared".
std::string CudaCompileCommand(const std::string& arch = "sm_90");

// The GPU facts sheet from the cuda calibration JSON (docs/evaluation.md,
// "cuda backend", calibration): name, compute capability, SMs, warp size,
// shared memory and registers per SM and per block, L2 size, memory size,
// clocks, driver, the calibrated fp32 FMA peak and copy bandwidth next to
// the data-sheet figures. A campaign's facts hold that JSON under "cuda"
// (daemon.cpp CampaignFacts); a JSON without a "gpu" object (a cpu
// calibration's, whose peaks are the CPU's) says "(none recorded)"; a fact
// that is absent says so.
std::string CudaHardwareProse(const json& calibration);

}  // namespace accelopt::workflows
