#include "evaluators/gpu/calibration.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/subprocess.hpp"
#include "evaluators/judge/toolchain.hpp"

namespace accelopt::eval::gpu {

namespace embedded {
extern const char* const kCalibrateMain;  // harness/calibrate_main.cu (gpu_embedded.cpp, from embedded.cpp.in)
}

std::optional<Datasheet> DatasheetFor(const std::string& n) {
  auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
  // NVIDIA data sheets, non-tensor FP32 and memory bandwidth.
  if (has("H200")) return Datasheet{66900, 4800, "NVIDIA H200 SXM data sheet"};
  if (has("H100") && has("PCIe")) return Datasheet{51200, 2000, "NVIDIA H100 PCIe data sheet"};
  if (has("H100") && has("NVL")) return Datasheet{60000, 3900, "NVIDIA H100 NVL data sheet"};
  if (has("H100")) return Datasheet{66900, 3350, "NVIDIA H100 SXM data sheet"};
  if (has("A100") && has("80GB") && has("PCIe")) return Datasheet{19500, 1935, "NVIDIA A100 80GB PCIe data sheet"};
  if (has("A100") && has("80GB")) return Datasheet{19500, 2039, "NVIDIA A100 80GB SXM data sheet"};
  if (has("A100")) return Datasheet{19500, 1555, "NVIDIA A100 40GB data sheet"};
  return std::nullopt;
}

json GpuCalibration::ToJson() const {
  json j = {{"backend", "cuda"},
            {"gpu", gpu},
            {"peak_gflops", peak_gflops},
            {"bandwidth_gbps", bandwidth_gbps},
            {"fingerprint", fingerprint}};
  if (datasheet) {
    j["datasheet_peak_gflops"] = datasheet->fp32_gflops;
    j["datasheet_bandwidth_gbps"] = datasheet->bandwidth_gbps;
    j["datasheet"] = datasheet->source;
  }
  return j;
}

Result<GpuCalibration> ParseCalibrationOutput(const std::string& text) {
  const std::string marker = "ACCELOPT-CUDA-CALIBRATION ";
  const size_t at = text.rfind(marker);
  if (at == std::string::npos) return InvalidArgument("the calibration program printed no result line");
  std::string line = text.substr(at + marker.size());
  line = line.substr(0, line.find('\n'));
  auto parsed = ParseJson(line);
  if (!parsed.ok()) return InvalidArgument("unreadable calibration line: " + parsed.status().message());
  const json& j = *parsed;
  if (!j.is_object() || !j.contains("gpu") || !j["gpu"].is_object() || !j["gpu"].contains("name") ||
      !j["gpu"]["name"].is_string())
    return InvalidArgument("calibration line without the GPU's facts");
  GpuCalibration c;
  c.gpu = j["gpu"];
  auto best = [&](const char* key, double* out) -> Status {
    if (!j.contains(key) || !j[key].is_array() || j[key].empty())
      return InvalidArgument(std::string("calibration line without ") + key);
    for (const auto& v : j[key]) {
      if (!v.is_number() || !(v.get<double>() > 0))
        return InvalidArgument(std::string(key) + ": not a positive number");
      *out = std::max(*out, v.get<double>());
    }
    return Status::Ok();
  };
  ACCELOPT_RETURN_IF_ERROR(best("fma_gflops", &c.peak_gflops));
  ACCELOPT_RETURN_IF_ERROR(best("copy_gbps", &c.bandwidth_gbps));
  const std::string name = c.gpu["name"].get<std::string>();
  c.datasheet = DatasheetFor(name);
  char buf[64];
  if (c.datasheet) {
    if (c.peak_gflops > 1.05 * c.datasheet->fp32_gflops) {
      std::snprintf(buf, sizeof buf, "%.0f > %.0f", c.peak_gflops, c.datasheet->fp32_gflops);
      return FailedPrecondition("measured fp32 peak above the data sheet (" + std::string(buf) + " GFLOP/s, " +
                                c.datasheet->source + "): the measurement is broken");
    }
    if (c.bandwidth_gbps > 1.05 * c.datasheet->bandwidth_gbps) {
      std::snprintf(buf, sizeof buf, "%.0f > %.0f", c.bandwidth_gbps, c.datasheet->bandwidth_gbps);
      return FailedPrecondition("measured bandwidth above the data sheet (" + std::string(buf) + " GB/s, " +
                                c.datasheet->source + "): the measurement is broken");
    }
  }
  auto fact = [&](const char* k) {
    return c.gpu.contains(k) ? (c.gpu[k].is_string() ? c.gpu[k].get<std::string>() : Dump(c.gpu[k])) : "?";
  };
  c.fingerprint = name + " | " + fact("sm_count") + " SMs | " + fact("sm_clock_mhz") + "/" + fact("memory_clock_mhz") +
                  " MHz | " + fact("memory_bytes") + " bytes | driver " + fact("driver");
  return c;
}

Result<GpuCalibration> CalibrateGpu(Env* env, const std::string& nvcc, const std::string& work_dir,
                                    const std::string& visible_devices) {
  ACCELOPT_RETURN_IF_ERROR(env->CreateDirs(work_dir));
  const std::string src = work_dir + "/calibrate_main.cu", exe = work_dir + "/calibrate";
  ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic(src, embedded::kCalibrateMain));
  ACCELOPT_ASSIGN_OR_RETURN(auto cc, judge::RunCompiler(env, nvcc, {"-std=c++17", "-O3", "-o", exe, src}, 300));
  if (!cc.ok) return Internal("compiling the cuda calibration program " + cc.describe + ":\n" + cc.output);
  ProcessSpec spec;
  spec.argv = {exe};
  spec.timeout = std::chrono::seconds(120);
  if (!visible_devices.empty())
    spec.env_set["CUDA_VISIBLE_DEVICES"] = visible_devices;
  else if (auto v = env->GetEnvVar("CUDA_VISIBLE_DEVICES"))
    spec.env_set["CUDA_VISIBLE_DEVICES"] = *v;
  ACCELOPT_ASSIGN_OR_RETURN(ProcessResult r, env->RunProcess(spec));
  if (!r.Succeeded()) {
    std::string why = r.stderr_data.substr(0, r.stderr_data.find('\n'));
    if (why.rfind("calibration error: ", 0) == 0) why = why.substr(19);
    return Unavailable("no usable GPU for the cuda calibration (" + r.Describe() + "): " + why);
  }
  return ParseCalibrationOutput(r.stdout_data);
}

}  // namespace accelopt::eval::gpu
