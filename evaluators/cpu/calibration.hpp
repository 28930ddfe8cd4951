// Calibration of the cpu roofline: peak fp32 FMA throughput and streaming
// (triad / read-only) bandwidth at working-set sizes chosen from the cache
// hierarchy, measured by a small program (harness/calibrate_main.cpp)
// compiled with the kernel compiler's flags and run as a child process
// (~5 s), refused when the machine is busy.
//
// Stored as JSON (Calibration::ToJson) in a file; valid only for the
// hardware fingerprint it was measured on (hardware.hpp).
//
// One procedure. `accelopt-eval calibrate`, the daemon (at start and on
// `calibrate --force`) and CpuBackend all go through Calibrate() below, with
// the same defaults (CalibrationOptions{}): the program is built with the
// same flags and run in the same environment as the harness runs kernels in
// (an empty environment with PATH=/usr/bin:/bin, plus OMP_NUM_THREADS = the
// cores this process may use), so OMP_* or GOMP_* variables of a shell, or
// systemd's environment, change nothing. LoadOrCalibrate/CalibrateAndSave
// compare with the previous file of the same fingerprint.
//
// Busy machines. Before measuring, /proc/stat is sampled for
// `quiet_sample_s`; while measuring, the program reports what other
// processes took. A measurement is busy (BusyCheck) when any of:
//   - the 1-minute load average > max_load_per_core x cores;
//   - other processes used > max_others_cpu of the CPUs' time before or
//     while measuring, or the hypervisor stole > max_steal of it;
//   - repeated trials of the same figure disagree: the spread (1 -
//     median/best) of the all-core peak > max_peak_spread, or the median
//     over sizes of the all-core bandwidth spreads > max_bandwidth_spread;
//   - the roofline peak, the one-core peak or the median over sizes of the
//     bandwidth figures is more than max_drop below the previous calibration
//     of the same fingerprint.
// A busy measurement is repeated up to `attempts` times, `retry_wait_s`
// apart; then Calibrate returns kUnavailable "calibration refused: the
// machine is busy (...what was seen...); retry when it is quiet, or pass
// --force-busy". `force_busy` accepts the measurement anyway. Either way the
// Calibration's `checks` records what was seen ("verdict": "quiet" |
// "forced"; "attempts": the observations and reasons of every measurement).
//
// Upper bounds. Every figure is the best of many short trials; the program
// reports all-core and one-core figures. On a loaded machine an all-core run
// loses whole time slices at its barriers, so the whole-machine roofline uses
//   peak_flops        = max(all-core, one-core x cores)
//   bandwidth at size = max(all-core, one-core x cores) inside the last-level
//                       cache (caches scale with cores), max(all-core,
//                       one-core) beyond it; then made non-increasing in the
//                       size (each figure >= every figure at a larger size).
//
// The working-set rule (BandwidthGbpsFor). The cache levels (`caches`, from
// sysfs) give each level's capacity for n cores: its size x the number of its
// instances those cores use (private L1/L2 x n, a shared L3 once). A working
// set of `bytes` lies in the smallest level whose capacity >= bytes, or in
// memory beyond the last-level cache (LLC). Its bandwidth is the figure at
// the largest calibrated size <= bytes *in the same level*, or the level's
// first (fastest) calibrated size when bytes is below all of them. So a
// working set beyond the LLC always gets a figure measured beyond the LLC
// (DRAM), and one inside gets a figure of the level it fits in; one just
// beyond a level (bytes <= 1.125 x its capacity) gets the larger of that and
// the smaller level's figure at its largest calibrated size (most of the
// working set still fits there: the bandwidth falls off a cliff between the
// capacity and the next point, and the bound must stay above it). The
// calibrated sizes guarantee a point in every level: 256 KiB, 1, 4, 16, 64,
// 256 MiB, plus half an L1, 1.125 x each level's capacity (just beyond it,
// the fastest figure of the next level: a kernel can keep part of its working
// set in the smaller level), and 2 x the LLC (capped at memory / 8). Within a
// level, bandwidth does not grow with size and the figures are
// non-increasing, so the figure is an upper bound a kernel cannot honestly
// beat; percent of peak is conservative. Without cache information (LLC
// unknown) the rule is the largest calibrated size <= bytes overall, or the
// smallest size when bytes is below all of them; so is a level without any
// calibrated point (files from before format 2 have none beyond an LLC of
// more than 128 MiB).
//
// Slots. An evaluation slot that owns n of the machine's `cores` gets
//   figure_n = max(whole x n / cores, min(whole, one-core x n))
// for the peak and for each bandwidth point (levels by the n-core
// capacities): the whole-machine share, or what n cores can do by
// themselves, whichever is larger, never above the whole machine. n <= 0 or
// n >= cores is the whole machine (the one-argument methods, unchanged).
// Without one-core figures (an old file without `raw`) every slot gets the
// whole-machine figures (still upper bounds).
//
// Old files (format 1: no "format", "cores", one-core figures, "caches" or
// "checks") still load: cores from raw.threads (else hardware.cores), the
// one-core figures from raw, the caches from hardware.l3_bytes (one shared
// level); the stored whole-machine figures are used as they are.
// Format 3 adds a non-temporal-store triad to the bandwidth passes (the
// fastest of triad, non-temporal triad and read-only is the figure): before
// it, a streaming kernel with non-temporal stores beyond the caches could
// honestly beat the figure. LoadOrCalibrate measures again over a file of
// format < 3 of this machine; when that is refused (a busy machine) it keeps
// the old figures with checks["stale"] saying why. `calibrate --force` on a
// quiet machine replaces any file.
//
// Thread safety: Calibration is a plain value, its methods are const and
// reentrant. Calibrate/CalibrateAndSave/LoadOrCalibrate may run concurrently
// with each other only on different paths and work_dirs; callers serialize
// them per file (the daemon holds a mutex and keeps evaluations off the
// machine meanwhile). They take seconds and block the calling thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::eval::cpu {

// One data or unified cache level, from sysfs.
struct CacheLevel {
  int level = 0;        // 1, 2, 3, ...
  double bytes = 0;     // one instance
  int shared_cpus = 1;  // this process's CPUs sharing one instance (>= 1)
  // Capacity for a working set shared by n of `cores` cores:
  // bytes x ceil(min(n, cores) / shared_cpus).
  double CapacityFor(int n, int cores) const;
};

struct Calibration {
  static constexpr int kFormat = 3;
  int format = kFormat;             // 1 = before the fields marked (2); 2 = no non-temporal stores
  json hardware;                    // HardwareInfo() at measurement time
  int cores = 1;                    // (2) the machine's cores the all-core figures used
  double peak_gflops = 0;           // whole-machine roofline compute peak (see above)
  double peak_gflops_one_core = 0;  // (2) one-core peak; 0 = unknown
  struct Point {
    double bytes = 0, gbps = 0;
  };
  std::vector<Point> bandwidth;           // whole-machine roofline bandwidth per working-set size, ascending
  std::vector<Point> bandwidth_one_core;  // (2) one-core figure at the same sizes; empty = unknown
  std::vector<CacheLevel> caches;         // (2) ascending by level; empty = unknown
  json raw;                               // the calibration program's output (the accepted measurement)
  json checks;                            // (2) what the busy checks saw; null in old files
  double seconds = 0;                     // how long measuring took (all attempts)
  double load_average = 0;                // 1-minute load average when the accepted measurement started
  int64_t measured_at_unix = 0;

  // The whole machine (today's figures).
  double BandwidthGbpsFor(double bytes) const;
  // Roofline latency in microseconds for flops and bytes.
  double PeakLatencyUs(double flops, double bytes) const;

  // A slot of `slot_cores` cores (<= 0 or >= cores: the whole machine).
  double PeakGflopsFor(int slot_cores) const;
  double BandwidthGbpsFor(double bytes, int slot_cores) const;
  double PeakLatencyUs(double flops, double bytes, int slot_cores) const;

  // Where a working set of `bytes` lies for `slot_cores` cores: the index
  // into `caches` of the level it fits in, caches.size() beyond the LLC, -1
  // when the caches are unknown.
  int LevelIndexFor(double bytes, int slot_cores) const;
  double LlcBytes() const;  // whole-machine LLC capacity; 0 = unknown

  json ToJson() const;
  // Accepts format 1 and 2 (see "Old files" above).
  static Result<Calibration> FromJson(const json& j);
  // The figures from the program's output `raw` measured on `hardware`
  // (pure; no checks). kInvalidArgument when raw lacks a figure.
  static Result<Calibration> FromRaw(const json& raw, const json& hardware);
};

// Thresholds of the busy checks (see above).
struct BusyThresholds {
  double max_load_per_core = 1.5;
  double max_others_cpu = 0.15;
  double max_steal = 0.10;
  double max_peak_spread = 0.15;
  double max_bandwidth_spread = 0.15;
  double max_drop = 0.25;
};

// What the machine looked like over a short window (from /proc/loadavg and
// /proc/stat, read through an Env so tests can script them).
struct MachineLoad {
  double load_1m = 0;
  int runnable_others = 0;   // running tasks besides the reader
  double busy_fraction = 0;  // of the CPUs' time over the window (this process's CPUs)
  double steal_fraction = 0;
  double window_s = 0;
  json ToJson() const;
};
MachineLoad SampleMachineLoad(Env* env, double window_s);

// The verdict on one measurement: `measured` (its raw carries the program's
// spreads and others_cpu_fraction), `before` (sampled just before), and the
// previous calibration of the same fingerprint if any. Pure.
struct BusyCheck {
  bool busy = false;
  std::vector<std::string> reasons;  // "load 3.1 on 2 cores", ...
  json seen;                         // every observation, for Calibration::checks
};
BusyCheck CheckBusy(const Calibration& measured, const MachineLoad& before, const Calibration* previous,
                    const BusyThresholds& t);

// The working-set sizes to calibrate for `hardware` (HardwareInfo), ascending.
std::vector<double> CalibrationSizes(const json& hardware);

struct CalibrationOptions {
  std::string compiler = "g++";
  std::string work_dir;         // REQUIRES: writable; the program is built here
  double budget_s = 0.2;        // seconds per single measurement
  bool force_busy = false;      // accept a busy measurement (recorded as "forced")
  int attempts = 3;             // measurements before refusing (>= 1)
  double retry_wait_s = 5;      // pause before measuring again
  double quiet_sample_s = 0.5;  // the /proc/stat window before each measurement
  BusyThresholds thresholds;
  std::optional<Calibration> previous;  // compared with; CalibrateAndSave sets it from the file
  json hardware;                        // null: HardwareInfo(env, compiler); tests set a synthetic one
  // REQUIRED: files, clocks, sleeping and the compiler and the program run
  // through it (callers pass theirs; accelopt-eval's and the daemon's main
  // pass Env::Default()).
  Env* env = nullptr;
};

// The file and options every caller uses for a cpu backend cache folder:
// <cache_dir>/calibration.json, built in <cache_dir>/calibrate, defaults
// otherwise (CpuBackend, accelopt-eval and the daemon agree on them).
std::string CalibrationPath(const std::string& cache_dir);
CalibrationOptions CalibrationOptionsFor(const std::string& cache_dir, Env* env, const std::string& compiler = "g++");

// Builds the program and measures now, with the busy checks.
Result<Calibration> Calibrate(const CalibrationOptions& options);

// Measures (previous = the file at `path` when it is of this fingerprint and
// options.previous is unset) and, when accepted, rewrites `path` atomically.
// A refusal leaves the file as it was.
Result<Calibration> CalibrateAndSave(const std::string& path, const CalibrationOptions& options);

// Reads `path`; measures (CalibrateAndSave) when it is missing, unreadable, or
// from another hardware fingerprint.
Result<Calibration> LoadOrCalibrate(const std::string& path, const CalibrationOptions& options);

}  // namespace accelopt::eval::cpu
