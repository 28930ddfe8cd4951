// Calibration of the cpu roofline: peak fp32 FMA throughput and streaming
// (triad) bandwidth at working-set sizes from 256 KiB to 256 MiB, measured by
// a small program (harness/calibrate_main.cpp) compiled with the kernel
// compiler's flags and run as a child process (a few seconds).
//
// Stored as JSON (Calibration::ToJson) in a file; valid only for the
// hardware fingerprint it was measured on (hardware.hpp).
//
// Upper bounds: the calibration program reports all-core and one-core
// figures. On a loaded machine an all-core run loses whole time slices at its
// barriers, so the roofline uses
//   peak_flops          = max(all-core, one-core x cores)
//   bandwidth(bytes)    = the figure at the largest calibrated size <= bytes
//                         (the smallest size when bytes is below all of them),
//                         where each figure is max(all-core, one-core x cores)
//                         for sizes within the last-level cache (caches scale
//                         with cores) and max(all-core, one-core) beyond it.
// A kernel cannot honestly beat these; percent of peak is conservative.
//
// Thread safety: Calibration is a plain value; functions are reentrant.
#pragma once

#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::eval::cpu {

struct Calibration {
  json hardware;                // HardwareInfo() at measurement time
  double peak_gflops = 0;       // roofline compute peak (see above)
  struct Point { double bytes = 0, gbps = 0; };
  std::vector<Point> bandwidth; // roofline bandwidth per working-set size, ascending
  json raw;                     // the calibration program's own output
  double seconds = 0;           // how long measuring took
  double load_average = 0;      // 1-minute load average when measured (a noisy machine shows here)
  int64_t measured_at_unix = 0;

  double BandwidthGbpsFor(double bytes) const;
  // Roofline latency in microseconds for flops and bytes.
  double PeakLatencyUs(double flops, double bytes) const;

  json ToJson() const;
  static Result<Calibration> FromJson(const json& j);
};

struct CalibrationOptions {
  std::string compiler = "g++";
  std::string work_dir;          // REQUIRES: writable; the program is built here
  double budget_s = 0.2;         // seconds per single measurement
};

// Measures now.
Result<Calibration> Calibrate(const CalibrationOptions& options);

// Reads `path`; re-measures (and rewrites the file atomically) when it is
// missing, unreadable, or from another hardware fingerprint.
Result<Calibration> LoadOrCalibrate(const std::string& path, const CalibrationOptions& options);

}  // namespace accelopt::eval::cpu
