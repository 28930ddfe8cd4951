// What the GPU backends (cuda_backend.cpp, triton_backend.cpp) share past
// the evaluation frame (evaluators/eval_frame.hpp): the hardware facts of a
// result, the judge's process on one GPU, a failed judge's result, and the
// last step: a passed judge verdict of a device-timed run becomes the EvalResult's
// latency, profile (achieved GFLOP/s and GB/s, the handshake, the share of
// the round trip the runner's claim leaves unexplained) and, with a GPU
// calibration, the roofline and percent of peak; faster than the roofline,
// or an implausible speedup over settings.baseline_latency_us, is
// kSuspicious with the reason, as on cpu.
//
// Thread safety: pure functions.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/subprocess.hpp"
#include "evaluators/judge/harness_builder.hpp"
#include "evaluators/judge/judge_verdict.hpp"
#include "evaluators/gpu/calibration.hpp"
#include "evaluators/eval_frame.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/protocol.hpp"

namespace accelopt::eval::gpu {

// A result's hardware facts: the GPU's, with its measured peak_gflops.
json GpuHardware(const GpuCalibration& calibration);

// The judge process of one evaluation on GPU `device`: `judge` reading
// `job` (judge::JobText) with the GPU lines after it (the device clock, the
// judge's memory limit, an unlimited runner address space, the runner's
// CUDA_VISIBLE_DEVICES) and `extra_job` last; a clean environment, the
// settings' timeout, no network. No RLIMIT_AS: it would be the runner's too
// (the judge sets its own).
ProcessSpec GpuJudgeSpec(const std::string& judge, const std::string& job, const std::string& extra_job, int device,
                         uint64_t judge_memory_limit_mb, uint64_t open_files, const EvalSettings& s,
                         const std::atomic<bool>* cancel);

// The result of a judge that did not pass: its verdict, except that a
// runner that could not even answer the handshake never ran the candidate
// (no GPU, no driver, a broken install: not the candidate's doing), which
// is kInternalError naming `runner` ("the cuda runner") and the GPU.
EvalResult GpuJudgeFailure(const EvalFrame& f, const judge::JudgeOutcome& judged, const std::string& runner,
                           int device);

// `result`: what the backend filled so far (timings, sandbox, hardware);
// `verdict`: the judge's passed verdict; `clock`: how the samples were timed
// ("CUDA events"), for the reason text.
EvalResult GpuTimedResult(EvalResult result, const Problem& problem, const json& verdict,
                          const std::vector<judge::CaseSpec>& cases, const EvalSettings& s,
                          const std::optional<GpuCalibration>& calibration, const std::string& clock);

}  // namespace accelopt::eval::gpu
