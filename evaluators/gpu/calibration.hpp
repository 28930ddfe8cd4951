// The cuda backend's calibration: the GPU's facts (name, compute capability,
// SMs, warp size, registers and shared memory per SM and per block, L2,
// memory, clocks, driver and runtime), the measured fp32 FMA peak and
// device-memory copy bandwidth (harness/calibrate_main.cu, compiled with
// nvcc and run in a child process), and the data sheet's figures for the
// GPUs we know, which bound the measurements from above: a measurement
// more than 5% above its data sheet is a broken measurement, refused.
// The JSON (ToJson) is what workflows::CudaHardwareProse renders for the
// agents.
//
// NOT RUN ON A GPU YET: the parsing and the bounds are tested here; the
// program compiles here and, without a driver, fails with its reason.
//
// Thread safety: pure functions, except CalibrateGpu (a child process
// through the Env).
#pragma once

#include <optional>
#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::eval::gpu {

struct Datasheet {
  double fp32_gflops = 0;  // non-tensor fp32 (FMA = 2 FLOP)
  double bandwidth_gbps = 0;
  std::string source;  // which data sheet
};

// The data sheet of a GPU by its CUDA device name ("NVIDIA H200",
// "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", ...); nullopt when unknown.
std::optional<Datasheet> DatasheetFor(const std::string& device_name);

struct GpuCalibration {
  json gpu = json::object();  // the facts as the program printed them
  double peak_gflops = 0;     // best measured fp32 FMA rate
  double bandwidth_gbps = 0;  // best measured copy bandwidth (read + write)
  std::optional<Datasheet> datasheet;
  std::string fingerprint;  // name | SMs | clocks | memory | driver

  json ToJson() const;
};

// Parses the program's stdout (the ACCELOPT-CUDA-CALIBRATION line) and
// applies the bounds. kInvalidArgument for a missing or malformed line,
// kFailedPrecondition for a measurement above its data sheet.
Result<GpuCalibration> ParseCalibrationOutput(const std::string& stdout_text);

// Compiles the embedded program with `nvcc` under `work_dir` and runs it
// (the GPU CUDA_VISIBLE_DEVICES leaves it). kUnavailable with the
// program's reason when there is no usable GPU.
// `visible_devices` (when not empty) is the program's CUDA_VISIBLE_DEVICES
// (the daemon calibrates each GPU of evaluators.cuda.devices this way).
Result<GpuCalibration> CalibrateGpu(Env* env, const std::string& nvcc, const std::string& work_dir,
                                    const std::string& visible_devices = "");

}  // namespace accelopt::eval::gpu
