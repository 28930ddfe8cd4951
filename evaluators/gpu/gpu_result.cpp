#include "evaluators/gpu/gpu_result.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "evaluators/judge/judge_verdict.hpp"

namespace accelopt::eval::gpu {

json GpuHardware(const GpuCalibration& calibration) {
  json h = calibration.gpu;
  h["peak_gflops"] = calibration.peak_gflops;
  return h;
}

ProcessSpec GpuJudgeSpec(const std::string& judge, const std::string& job, const std::string& extra_job, int device,
                         uint64_t judge_memory_limit_mb, uint64_t open_files, const EvalSettings& s,
                         const std::atomic<bool>* cancel) {
  ProcessSpec spec;
  spec.argv = {judge};
  spec.stdin_data = job + "clock device\njudge_memory_mb " + std::to_string(judge_memory_limit_mb) +
                    "\nrunner_address_space unlimited\nrunner_env CUDA_VISIBLE_DEVICES=" + std::to_string(device) +
                    "\n" + extra_job;
  spec.clear_env = true;
  spec.env_set["PATH"] = "/usr/bin:/bin";
  spec.env_set["CUDA_VISIBLE_DEVICES"] = std::to_string(device);
  spec.timeout = std::chrono::milliseconds(static_cast<int64_t>(s.timeout_s * 1000));
  spec.limits.cpu_seconds = static_cast<uint64_t>(std::ceil(s.timeout_s * 2 + 10));
  spec.limits.open_files = open_files;
  spec.private_network = true;
  spec.cancel = cancel;
  spec.max_output_bytes = 8 << 20;
  return spec;
}

EvalResult GpuJudgeFailure(const EvalFrame& f, const judge::JudgeOutcome& judged, const std::string& runner,
                           int device) {
  if (judged.phase == "handshake") {
    return f.Fail(EvalStatus::kInternalError,
                  runner + " could not start on GPU " + std::to_string(device) + ": " + judged.reason,
                  judged.error_text);
  }
  return f.Fail(judged.status, judged.reason, judged.error_text);
}

EvalResult GpuTimedResult(EvalResult result, const Problem& problem, const json& verdict,
                          const std::vector<judge::CaseSpec>& cases, const EvalSettings& s,
                          const std::optional<GpuCalibration>& calibration, const std::string& clock) {
  const json& h = verdict;
  result.correct = true;
  result.max_rel_error = h.value("max_rel_error", 0.0);
  const LatencyStats lat = judge::LatencyOfVerdict(h);
  result.latency = lat;

  // Profile and roofline (from the GPU calibration, when there is one).
  auto& pr = result.profile;
  pr["flops"] = problem.flops;
  pr["bytes"] = problem.bytes;
  pr["arithmetic_intensity"] = problem.flops / problem.bytes;
  pr["timing_calls"] = h.value("calls", 0);
  pr["calls_per_sample"] = h.value("calls_per_sample", 1);
  pr["handshake_overhead_us"] = h.value("handshake_min_ns", 0.0) / 1000.0;
  pr["handshake_median_us"] = h.value("handshake_median_ns", 0.0) / 1000.0;
  if (h.contains("device_unexplained_median") && h["device_unexplained_median"].is_number())
    pr["device_unexplained_ratio"] = h["device_unexplained_median"].get<double>();
  const double t = lat.median_us * 1e-6;
  if (t > 0) {
    pr["achieved_gflops"] = problem.flops / t / 1e9;
    pr["achieved_gbps"] = problem.bytes / t / 1e9;
  }
  if (calibration && calibration->peak_gflops > 0 && calibration->bandwidth_gbps > 0) {
    const double peak = calibration->peak_gflops, bw = calibration->bandwidth_gbps;
    pr["roofline_peak_gflops"] = peak;
    pr["roofline_bandwidth_gbps"] = bw;
    pr["roofline_compute_us"] = problem.flops / (peak * 1e9) * 1e6;
    pr["roofline_memory_us"] = problem.bytes / (bw * 1e9) * 1e6;
    const double peak_us = std::max(pr["roofline_compute_us"], pr["roofline_memory_us"]);
    result.peak_latency_us = peak_us;
    if (lat.median_us > 0) result.percent_of_peak = 100 * peak_us / lat.median_us;
  }
  result.status = EvalStatus::kOk;
  result.reason = "correct on " +
                  std::to_string(std::count_if(cases.begin(), cases.end(),
                                               [](const judge::CaseSpec& c) { return c.role != 'x'; })) +
                  " cases; median " + std::to_string(lat.median_us) + " us (" + clock +
                  ", bounded by the judge's clock)";
  if (result.percent_of_peak && *result.percent_of_peak > 100 * s.roofline_slack) {
    result.status = EvalStatus::kSuspicious;
    std::ostringstream m;
    m << "faster than the roofline: median " << lat.median_us << " us < peak latency " << *result.peak_latency_us
      << " us (" << *result.percent_of_peak << "% of peak); a kernel cannot beat the hardware — check for skipped work";
    result.reason = m.str();
  } else if (s.baseline_latency_us && lat.median_us > 0 && *s.baseline_latency_us / lat.median_us > s.max_speedup) {
    result.status = EvalStatus::kSuspicious;
    std::ostringstream m;
    m << "implausible speedup " << *s.baseline_latency_us / lat.median_us << "x over the baseline (limit "
      << s.max_speedup << "x)";
    result.reason = m.str();
  }
  return result;
}

}  // namespace accelopt::eval::gpu
