// The GPU backends' shared last step (cuda_backend.cpp, triton_backend.cpp):
// a passed judge verdict of a device-timed run becomes the EvalResult's
// latency, profile (achieved GFLOP/s and GB/s, the handshake, the share of
// the round trip the runner's claim leaves unexplained) and, with a GPU
// calibration, the roofline and percent of peak; faster than the roofline,
// or an implausible speedup over settings.baseline_latency_us, is
// kSuspicious with the reason, as on cpu.
//
// Thread safety: a pure function.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "evaluators/cpu/harness_builder.hpp"
#include "evaluators/cuda/calibration.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/protocol.hpp"

namespace accelopt::eval::cuda {

// `result`: what the backend filled so far (timings, sandbox, hardware);
// `verdict`: the judge's passed verdict; `clock`: how the samples were timed
// ("CUDA events"), for the reason text.
EvalResult GpuTimedResult(EvalResult result, const Problem& problem, const json& verdict,
                          const std::vector<cpu::CaseSpec>& cases, const EvalSettings& s,
                          const std::optional<GpuCalibration>& calibration, const std::string& clock);

}  // namespace accelopt::eval::cuda
