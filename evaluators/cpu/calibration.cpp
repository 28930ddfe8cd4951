#include "evaluators/cpu/calibration.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/env.hpp"
#include "base/subprocess.hpp"
#include "evaluators/cpu/embedded.hpp"
#include "evaluators/cpu/hardware.hpp"

namespace accelopt::eval::cpu {
namespace fs = std::filesystem;

double Calibration::BandwidthGbpsFor(double bytes) const {
  if (bandwidth.empty()) return 0;
  double bw = bandwidth.front().gbps;
  for (const auto& p : bandwidth)
    if (p.bytes <= bytes) bw = p.gbps;
  return bw;
}

double Calibration::PeakLatencyUs(double flops, double bytes) const {
  double t_compute = peak_gflops > 0 ? flops / (peak_gflops * 1e9) : 0;
  double bw = BandwidthGbpsFor(bytes);
  double t_memory = bw > 0 ? bytes / (bw * 1e9) : 0;
  return std::max(t_compute, t_memory) * 1e6;
}

json Calibration::ToJson() const {
  json bw = json::array();
  for (const auto& p : bandwidth) bw.push_back({{"bytes", p.bytes}, {"gbps", p.gbps}});
  return {{"hardware", hardware}, {"peak_gflops", peak_gflops}, {"bandwidth", bw},
          {"raw", raw},           {"seconds", seconds},         {"load_average", load_average},
          {"measured_at_unix", measured_at_unix}};
}

Result<Calibration> Calibration::FromJson(const json& j) {
  try {
    Calibration c;
    c.hardware = j.at("hardware");
    c.peak_gflops = j.at("peak_gflops").get<double>();
    for (const auto& p : j.at("bandwidth")) c.bandwidth.push_back({p.at("bytes").get<double>(), p.at("gbps").get<double>()});
    c.raw = j.value("raw", json::object());
    c.seconds = j.value("seconds", 0.0);
    c.load_average = j.value("load_average", 0.0);
    c.measured_at_unix = j.value("measured_at_unix", int64_t{0});
    if (c.peak_gflops <= 0 || c.bandwidth.empty()) return InvalidArgument("calibration: empty figures");
    return c;
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("calibration: ") + e.what());
  }
}

Result<Calibration> Calibrate(const CalibrationOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  fs::create_directories(options.work_dir, ec);
  std::string src = (fs::path(options.work_dir) / "calibrate_main.cpp").string();
  std::string exe = (fs::path(options.work_dir) / ("calibrate." + std::to_string(Env::Default()->RandomU64() % 1000000)))
                        .string();
  ACCELOPT_RETURN_IF_ERROR(Env::Default()->WriteFileAtomic(src, std::string(embedded::kCalibrateMain)));
  ProcessSpec cc;
  cc.argv = {options.compiler, "-O3", "-march=native", "-fopenmp", "-ffp-contract=fast", "-o", exe, src};
  cc.timeout = std::chrono::seconds(120);
  ACCELOPT_ASSIGN_OR_RETURN(auto built, RunProcess(cc));
  if (!built.Succeeded()) return Internal("building the calibration program " + built.Describe() + ": " + built.stderr_data.substr(0, 2000));
  ProcessSpec run;
  run.argv = {exe, std::to_string(options.budget_s)};
  run.timeout = std::chrono::seconds(120);
  auto ran = RunProcess(run);
  fs::remove(exe, ec);
  if (!ran.ok()) return ran.status();
  if (!ran->Succeeded()) return Internal("calibration program " + ran->Describe() + ": " + ran->stderr_data.substr(0, 2000));
  ACCELOPT_ASSIGN_OR_RETURN(json raw, ParseJson(ran->stdout_data));

  Calibration c;
  c.hardware = HardwareInfo(options.compiler);
  c.raw = raw;
  int cores = c.hardware.value("cores", 1);
  double l3 = c.hardware.value("l3_bytes", 0.0);
  try {
    c.peak_gflops = std::max(raw.at("peak_gflops_all_cores").get<double>(),
                             raw.at("peak_gflops_one_core").get<double>() * cores);
    for (const auto& p : raw.at("bandwidth")) {
      double bytes = p.at("bytes").get<double>();
      double all = p.at("gbps_all_cores").get<double>(), one = p.at("gbps_one_core").get<double>();
      double scaled = (l3 > 0 && bytes <= l3) ? one * cores : one;
      c.bandwidth.push_back({bytes, std::max(all, scaled)});
    }
  } catch (const std::exception& e) {
    return Internal(std::string("calibration output: ") + e.what());
  }
  std::ifstream la("/proc/loadavg");
  la >> c.load_average;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.measured_at_unix = Env::Default()->NowMicros() / 1000000;
  return c;
}

Result<Calibration> LoadOrCalibrate(const std::string& path, const CalibrationOptions& options) {
  json hw = HardwareInfo(options.compiler);
  if (auto text = Env::Default()->ReadFile(path); text.ok()) {
    if (auto j = ParseJson(*text); j.ok()) {
      if (auto c = Calibration::FromJson(*j); c.ok() && c->hardware.value("fingerprint", "") == hw["fingerprint"]) {
        return c;
      }
    }
  }
  ACCELOPT_ASSIGN_OR_RETURN(Calibration c, Calibrate(options));
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  ACCELOPT_RETURN_IF_ERROR(Env::Default()->WriteFileAtomic(path, Dump(c.ToJson(), 2) + "\n"));
  return c;
}

}  // namespace accelopt::eval::cpu
