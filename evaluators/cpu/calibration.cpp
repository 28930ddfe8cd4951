#include "evaluators/cpu/calibration.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "base/subprocess.hpp"
#include "evaluators/cpu/embedded.hpp"
#include "evaluators/cpu/hardware.hpp"

namespace accelopt::eval::cpu {
namespace fs = std::filesystem;

namespace {

std::string Fixed(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

std::string Pct(double fraction) { return Fixed(100 * fraction, 0) + "%"; }

// figure_n = max(whole x n / cores, min(whole, one x n)); the whole machine
// for n <= 0, n >= cores, or when the one-core figure is unknown.
double ScaleToSlot(double whole, double one, int n, int cores) {
  if (n <= 0 || n >= cores || one <= 0) return whole;
  return std::max(whole * n / cores, std::min(whole, one * n));
}

// Each figure >= every figure at a larger size (points ascending by size).
void MakeNonIncreasing(std::vector<Calibration::Point>& pts) {
  for (size_t i = pts.size(); i-- > 1;) pts[i - 1].gbps = std::max(pts[i - 1].gbps, pts[i].gbps);
}

std::vector<CacheLevel> CachesFromHardware(const json& hw, int cores) {
  std::vector<CacheLevel> out;
  if (hw.contains("caches") && hw["caches"].is_array()) {
    for (const auto& c : hw["caches"]) {
      CacheLevel l;
      l.level = c.value("level", 0);
      l.bytes = c.value("bytes", 0.0);
      l.shared_cpus = std::max(1, c.value("shared_cpus", 1));
      if (l.bytes > 0) out.push_back(l);
    }
  } else if (double l3 = hw.value("l3_bytes", 0.0); l3 > 0) {
    out.push_back({3, l3, std::max(1, cores)});  // format 1: one shared last level
  }
  std::sort(out.begin(), out.end(), [](const CacheLevel& a, const CacheLevel& b) { return a.level < b.level; });
  return out;
}

std::vector<CacheLevel> CachesFromJson(const json& arr) {
  std::vector<CacheLevel> out;
  for (const auto& c : arr)
    out.push_back({c.at("level").get<int>(), c.at("bytes").get<double>(), std::max(1, c.value("shared_cpus", 1))});
  return out;
}

// The working-set rule (header) over points already scaled for the slot.
double RuleFor(const Calibration& c, const std::vector<Calibration::Point>& pts, double bytes, int n) {
  if (pts.empty()) return 0;
  auto old_rule = [&] {
    double bw = pts.front().gbps;
    for (const auto& p : pts)
      if (p.bytes <= bytes) bw = p.gbps;
    return bw;
  };
  int level = c.LevelIndexFor(bytes, n);
  if (level < 0) return old_rule();
  const Calibration::Point* first = nullptr;
  const Calibration::Point* below = nullptr;
  for (const auto& p : pts) {
    if (c.LevelIndexFor(p.bytes, n) != level) continue;
    if (!first) first = &p;
    if (p.bytes <= bytes) below = &p;
  }
  double bw = below ? below->gbps : first ? first->gbps : old_rule();  // old_rule: no calibrated point in this level
  // Just beyond a level (up to 1.125 x its capacity, where the next level's
  // first point is measured) most of the working set still fits in it: the
  // level's own last figure is the bound there too (measured: an honest
  // 272 MiB stream at 37 GB/s, 4.6% beyond a 260 MiB L3 whose 256 MiB point
  // was 31 GB/s and the 292.5 MiB point 17 GB/s on a busy 2-core VM).
  if (level > 0 && bytes <= 1.125 * c.caches[level - 1].CapacityFor(n, c.cores)) {
    const Calibration::Point* last = nullptr;  // the level's largest calibrated size
    for (const auto& p : pts)
      if (c.LevelIndexFor(p.bytes, n) == level - 1) last = &p;
    if (last) bw = std::max(bw, last->gbps);
  }
  return bw;
}

// Per-CPU busy and steal seconds from /proc/stat text, for this process's CPUs
// (`mine`: Env::AllowedCpus; all CPUs when none of the lines matches).
struct CpuSeconds {
  double busy = 0, steal = 0;
  int cpus = 0;
};
CpuSeconds ParseProcStat(const std::string& text, const std::vector<int>& cpus, int64_t ticks_per_s) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  const bool have_set = !cpus.empty();
  CpuSeconds mine, all;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    int cpu;
    unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal = 0;
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    if (std::sscanf(line.c_str(), "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &user, &nice, &sys, &idle,
                    &iowait, &irq, &softirq, &steal) < 8)
      continue;
    double busy = static_cast<double>(user + nice + sys + irq + softirq);
    for (CpuSeconds* s : {&mine, &all}) {
      if (s == &mine && !(have_set && cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set))) continue;
      s->busy += busy;
      s->steal += static_cast<double>(steal);
      s->cpus += 1;
    }
  }
  CpuSeconds out = mine.cpus > 0 ? mine : all;
  const double hz = static_cast<double>(ticks_per_s);  // USER_HZ
  out.busy /= hz;
  out.steal /= hz;
  return out;
}

// The median of `v` (0 when empty).
double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

double CacheLevel::CapacityFor(int n, int cores) const {
  int used = std::max(1, std::min(n <= 0 ? cores : n, std::max(1, cores)));
  int instances = (used + shared_cpus - 1) / shared_cpus;
  return bytes * instances;
}

int Calibration::LevelIndexFor(double bytes, int slot_cores) const {
  if (caches.empty()) return -1;
  int n = (slot_cores <= 0 || slot_cores >= cores) ? cores : slot_cores;
  for (size_t i = 0; i < caches.size(); ++i)
    if (bytes <= caches[i].CapacityFor(n, cores)) return static_cast<int>(i);
  return static_cast<int>(caches.size());
}

double Calibration::LlcBytes() const { return caches.empty() ? 0 : caches.back().CapacityFor(cores, cores); }

double Calibration::BandwidthGbpsFor(double bytes) const { return RuleFor(*this, bandwidth, bytes, cores); }

double Calibration::PeakLatencyUs(double flops, double bytes) const { return PeakLatencyUs(flops, bytes, 0); }

double Calibration::PeakGflopsFor(int slot_cores) const {
  return ScaleToSlot(peak_gflops, peak_gflops_one_core, slot_cores, cores);
}

double Calibration::BandwidthGbpsFor(double bytes, int slot_cores) const {
  if (slot_cores <= 0 || slot_cores >= cores || bandwidth_one_core.size() != bandwidth.size())
    return BandwidthGbpsFor(bytes);
  std::vector<Point> pts = bandwidth;
  for (size_t i = 0; i < pts.size(); ++i)
    pts[i].gbps = ScaleToSlot(bandwidth[i].gbps, bandwidth_one_core[i].gbps, slot_cores, cores);
  MakeNonIncreasing(pts);  // already so when both inputs are; kept for hand-made calibrations
  return RuleFor(*this, pts, bytes, slot_cores);
}

double Calibration::PeakLatencyUs(double flops, double bytes, int slot_cores) const {
  double peak = PeakGflopsFor(slot_cores);
  double t_compute = peak > 0 ? flops / (peak * 1e9) : 0;
  double bw = BandwidthGbpsFor(bytes, slot_cores);
  double t_memory = bw > 0 ? bytes / (bw * 1e9) : 0;
  return std::max(t_compute, t_memory) * 1e6;
}

json Calibration::ToJson() const {
  auto points = [](const std::vector<Point>& v) {
    json a = json::array();
    for (const auto& p : v) a.push_back({{"bytes", p.bytes}, {"gbps", p.gbps}});
    return a;
  };
  json caches_j = json::array();
  for (const auto& c : caches)
    caches_j.push_back({{"level", c.level}, {"bytes", c.bytes}, {"shared_cpus", c.shared_cpus}});
  json j = {{"format", format},
            {"hardware", hardware},
            {"cores", cores},
            {"peak_gflops", peak_gflops},
            {"peak_gflops_one_core", peak_gflops_one_core},
            {"bandwidth", points(bandwidth)},
            {"bandwidth_one_core", points(bandwidth_one_core)},
            {"caches", caches_j},
            {"llc_bytes", LlcBytes()},
            {"raw", raw},
            {"checks", checks},
            {"seconds", seconds},
            {"load_average", load_average},
            {"measured_at_unix", measured_at_unix}};
  return j;
}

Result<Calibration> Calibration::FromJson(const json& j) {
  try {
    Calibration c;
    c.format = j.value("format", 1);
    c.hardware = j.at("hardware");
    c.peak_gflops = j.at("peak_gflops").get<double>();
    for (const auto& p : j.at("bandwidth"))
      c.bandwidth.push_back({p.at("bytes").get<double>(), p.at("gbps").get<double>()});
    c.raw = j.value("raw", json::object());
    c.checks = j.value("checks", json());
    c.seconds = j.value("seconds", 0.0);
    c.load_average = j.value("load_average", 0.0);
    c.measured_at_unix = j.value("measured_at_unix", int64_t{0});
    if (c.peak_gflops <= 0 || c.bandwidth.empty()) return InvalidArgument("calibration: empty figures");
    std::sort(c.bandwidth.begin(), c.bandwidth.end(), [](const Point& a, const Point& b) { return a.bytes < b.bytes; });
    // cores: the field, else the threads the program ran, else the hardware's.
    int hw_cores = c.hardware.is_object() ? c.hardware.value("cores", 1) : 1;
    int raw_threads = c.raw.is_object() ? c.raw.value("threads", 0) : 0;
    c.cores = std::max(1, j.value("cores", raw_threads > 0 ? raw_threads : hw_cores));
    // One-core figures: the fields, else derived from raw, else unknown.
    c.peak_gflops_one_core = j.value("peak_gflops_one_core", 0.0);
    if (j.contains("bandwidth_one_core")) {
      for (const auto& p : j["bandwidth_one_core"])
        c.bandwidth_one_core.push_back({p.at("bytes").get<double>(), p.at("gbps").get<double>()});
    }
    if (c.raw.is_object()) {
      if (c.peak_gflops_one_core <= 0) c.peak_gflops_one_core = c.raw.value("peak_gflops_one_core", 0.0);
      if (c.bandwidth_one_core.empty() && c.raw.contains("bandwidth") && c.raw["bandwidth"].is_array()) {
        for (const auto& p : c.raw["bandwidth"])
          if (p.contains("gbps_one_core"))
            c.bandwidth_one_core.push_back({p.at("bytes").get<double>(), p["gbps_one_core"].get<double>()});
        std::sort(c.bandwidth_one_core.begin(), c.bandwidth_one_core.end(),
                  [](const Point& a, const Point& b) { return a.bytes < b.bytes; });
        MakeNonIncreasing(c.bandwidth_one_core);
      }
    }
    // Only usable when they pair with the whole-machine sizes.
    bool paired = c.bandwidth_one_core.size() == c.bandwidth.size();
    for (size_t i = 0; paired && i < c.bandwidth.size(); ++i)
      paired = std::abs(c.bandwidth_one_core[i].bytes - c.bandwidth[i].bytes) <= 0.01 * c.bandwidth[i].bytes + 64;
    if (!paired) c.bandwidth_one_core.clear();
    c.caches = j.contains("caches") && j["caches"].is_array() ? CachesFromJson(j["caches"])
                                                              : CachesFromHardware(c.hardware, c.cores);
    return c;
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("calibration: ") + e.what());
  }
}

Result<Calibration> Calibration::FromRaw(const json& raw, const json& hardware) {
  try {
    Calibration c;
    c.hardware = hardware;
    c.raw = raw;
    int threads = raw.value("threads", 0);
    c.cores = std::max(1, threads > 0 ? threads : hardware.value("cores", 1));
    c.caches = CachesFromHardware(hardware, c.cores);
    double all = raw.at("peak_gflops_all_cores").get<double>(), one = raw.at("peak_gflops_one_core").get<double>();
    c.peak_gflops = std::max(all, one * c.cores);
    c.peak_gflops_one_core = one;
    const double llc = c.LlcBytes();
    for (const auto& p : raw.at("bandwidth")) {
      double bytes = p.at("bytes").get<double>();
      double a = p.at("gbps_all_cores").get<double>(), o = p.at("gbps_one_core").get<double>();
      double scaled = (llc > 0 && bytes <= llc) ? o * c.cores : o;
      c.bandwidth.push_back({bytes, std::max(a, scaled)});
      c.bandwidth_one_core.push_back({bytes, o});
    }
    std::vector<size_t> order(c.bandwidth.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return c.bandwidth[x].bytes < c.bandwidth[y].bytes; });
    std::vector<Point> w, o;
    for (size_t i : order) {
      w.push_back(c.bandwidth[i]);
      o.push_back(c.bandwidth_one_core[i]);
    }
    c.bandwidth = w;
    c.bandwidth_one_core = o;
    MakeNonIncreasing(c.bandwidth);
    MakeNonIncreasing(c.bandwidth_one_core);
    if (c.peak_gflops <= 0 || c.bandwidth.empty()) return InvalidArgument("calibration output: empty figures");
    return c;
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("calibration output: ") + e.what());
  }
}

json MachineLoad::ToJson() const {
  return {{"load_1m", load_1m},
          {"runnable_others", runnable_others},
          {"busy_fraction", busy_fraction},
          {"steal_fraction", steal_fraction},
          {"window_s", window_s}};
}

MachineLoad SampleMachineLoad(Env* env, double window_s) {
  MachineLoad m;
  auto loadavg = [&] {
    auto t = env->ReadFile("/proc/loadavg");
    if (!t.ok()) return;
    double l1 = 0;
    int running = 0, total = 0;
    if (std::sscanf(t->c_str(), "%lf %*f %*f %d/%d", &l1, &running, &total) >= 1) m.load_1m = l1;
    m.runnable_others = std::max(m.runnable_others, running - 1);  // the reader itself is running
  };
  loadavg();
  auto s0 = env->ReadFile("/proc/stat");
  int64_t t0 = env->MonotonicNanos();
  env->SleepFor(std::chrono::nanoseconds(static_cast<int64_t>(window_s * 1e9)));
  auto s1 = env->ReadFile("/proc/stat");
  m.window_s = (env->MonotonicNanos() - t0) / 1e9;
  if (s0.ok() && s1.ok() && m.window_s > 0) {
    const std::vector<int> mine = env->AllowedCpus();
    const int64_t hz = env->ClockTicksPerSecond();
    CpuSeconds a = ParseProcStat(*s0, mine, hz), b = ParseProcStat(*s1, mine, hz);
    int cpus = std::max(1, b.cpus);
    m.busy_fraction = std::clamp((b.busy - a.busy) / (m.window_s * cpus), 0.0, 1.0);
    m.steal_fraction = std::clamp((b.steal - a.steal) / (m.window_s * cpus), 0.0, 1.0);
  }
  return m;
}

BusyCheck CheckBusy(const Calibration& measured, const MachineLoad& before, const Calibration* previous,
                    const BusyThresholds& t) {
  BusyCheck out;
  const json& raw = measured.raw;
  const int cores = std::max(1, measured.cores);
  json seen = {{"before", before.ToJson()}};
  auto reason = [&](std::string r) {
    out.busy = true;
    out.reasons.push_back(std::move(r));
  };
  // Load.
  if (before.load_1m > t.max_load_per_core * cores)
    reason("load " + Fixed(before.load_1m, 1) + " on " + std::to_string(cores) + " cores");
  // Other processes, the hypervisor.
  double others = raw.value("others_cpu_fraction", 0.0), steal = raw.value("steal_fraction", 0.0);
  seen["others_cpu_fraction"] = others;
  seen["steal_fraction"] = steal;
  if (before.busy_fraction > t.max_others_cpu)
    reason("other processes used " + Pct(before.busy_fraction) + " of the CPUs before measuring");
  if (others > t.max_others_cpu) reason("other processes used " + Pct(others) + " of the CPUs while measuring");
  double max_steal = std::max(steal, before.steal_fraction);
  if (max_steal > t.max_steal) reason("the hypervisor took " + Pct(max_steal) + " of the CPU time (steal)");
  // Trials of the same figure disagreeing.
  double peak_spread = raw.value("peak_spread_all_cores", 0.0);
  std::vector<double> bw_spreads;
  if (raw.contains("bandwidth") && raw["bandwidth"].is_array())
    for (const auto& p : raw["bandwidth"]) bw_spreads.push_back(p.value("spread_all_cores", 0.0));
  double bw_spread = Median(bw_spreads);
  seen["peak_spread_all_cores"] = peak_spread;
  seen["peak_spread_one_core"] = raw.value("peak_spread_one_core", 0.0);
  seen["bandwidth_spread_all_cores_median"] = bw_spread;
  if (peak_spread > t.max_peak_spread || bw_spread > t.max_bandwidth_spread) {
    std::string r = "repeated trials disagree (";
    if (peak_spread > t.max_peak_spread) r += "all-core peak spread " + Pct(peak_spread);
    if (peak_spread > t.max_peak_spread && bw_spread > t.max_bandwidth_spread) r += ", ";
    if (bw_spread > t.max_bandwidth_spread) r += "bandwidth spread " + Pct(bw_spread) + " (median over sizes)";
    reason(r + ")");
  }
  // Far below the previous calibration of this machine.
  if (previous && previous->hardware.value("fingerprint", "") == measured.hardware.value("fingerprint", "") &&
      previous->peak_gflops > 0) {
    json prev = {{"measured_at_unix", previous->measured_at_unix}, {"peak_gflops", previous->peak_gflops}};
    double peak_drop = 1 - measured.peak_gflops / previous->peak_gflops;
    prev["peak_drop"] = peak_drop;
    if (peak_drop > t.max_drop)
      reason("peak " + Pct(peak_drop) + " below the previous calibration of this machine (" +
             Fixed(previous->peak_gflops, 0) + " -> " + Fixed(measured.peak_gflops, 0) + " GFLOP/s)");
    if (previous->peak_gflops_one_core > 0 && measured.peak_gflops_one_core > 0) {
      double one_drop = 1 - measured.peak_gflops_one_core / previous->peak_gflops_one_core;
      prev["peak_one_core_drop"] = one_drop;
      if (one_drop > t.max_drop)
        reason("one-core peak " + Pct(one_drop) + " below the previous calibration of this machine (" +
               Fixed(previous->peak_gflops_one_core, 0) + " -> " + Fixed(measured.peak_gflops_one_core, 0) +
               " GFLOP/s)");
    }
    std::vector<double> ratios;
    for (const auto& p : measured.bandwidth)
      for (const auto& q : previous->bandwidth)
        if (q.gbps > 0 && std::abs(p.bytes - q.bytes) <= 0.02 * q.bytes) ratios.push_back(p.gbps / q.gbps);
    if (!ratios.empty()) {
      double bw_drop = 1 - Median(ratios);
      prev["bandwidth_drop_median"] = bw_drop;
      if (bw_drop > t.max_drop)
        reason("bandwidth " + Pct(bw_drop) + " below the previous calibration of this machine (median over sizes)");
    }
    seen["previous"] = prev;
  }
  seen["busy"] = out.busy;
  seen["reasons"] = out.reasons;
  out.seen = std::move(seen);
  return out;
}

std::vector<double> CalibrationSizes(const json& hardware) {
  std::vector<double> sizes = {256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20};
  int cores = std::max(1, hardware.value("cores", 1));
  std::vector<CacheLevel> caches = CachesFromHardware(hardware, cores);
  double memory = hardware.value("memory_bytes", 0.0);
  double cap_bytes = memory > 0 ? memory / 8 : 4.0 * (1 << 30);
  std::vector<double> extra;
  if (!caches.empty()) {
    extra.push_back(caches.front().bytes / 2);  // inside one core's L1
    for (const auto& c : caches) extra.push_back(1.125 * c.CapacityFor(cores, cores));
    extra.push_back(2 * caches.back().CapacityFor(cores, cores));
  }
  for (double e : extra)
    if (e <= cap_bytes) sizes.push_back(e);
  std::sort(sizes.begin(), sizes.end());
  std::vector<double> out;
  for (double s : sizes) {
    s = std::floor(s / 768) * 768;  // 12-byte triad elements, whole cache lines
    if (s < 768) continue;
    if (!out.empty() && s < out.back() * 1.05) continue;
    out.push_back(s);
  }
  return out;
}

std::string CalibrationPath(const std::string& cache_dir) {
  return (fs::path(cache_dir) / "calibration.json").string();
}

CalibrationOptions CalibrationOptionsFor(const std::string& cache_dir, Env* env, const std::string& compiler) {
  CalibrationOptions o;
  o.env = env;
  o.compiler = compiler;
  o.work_dir = (fs::path(cache_dir) / "calibrate").string();
  return o;
}

Result<Calibration> Calibrate(const CalibrationOptions& options) {
  Env* env = options.env;
  const int64_t t0 = env->MonotonicNanos();
  json hw = options.hardware.is_null() ? HardwareInfo(env, options.compiler) : options.hardware;
  const int cores = std::max(1, hw.value("cores", 1));
  ACCELOPT_RETURN_IF_ERROR(env->CreateDirs(options.work_dir));
  std::string src = (fs::path(options.work_dir) / "calibrate_main.cpp").string();
  std::string exe = (fs::path(options.work_dir) / ("calibrate." + std::to_string(env->RandomU64() % 1000000))).string();
  ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic(src, std::string(embedded::kCalibrateMain)));
  ProcessSpec cc;
  cc.argv = {options.compiler, "-O3", "-march=native", "-fopenmp", "-ffp-contract=fast", "-o", exe, src};
  cc.timeout = std::chrono::seconds(120);
  ACCELOPT_ASSIGN_OR_RETURN(auto built, env->RunProcess(cc));
  if (!built.Succeeded()) {
    // A compiler that did not finish in time on a loaded machine is the
    // busy machine's refusal too (kUnavailable: the daemon starts and
    // retries, daemon/backends/deferred_calibration.hpp), not a broken toolchain.
    if (built.outcome == ProcessResult::Outcome::kTimedOut) {
      return Unavailable("calibration refused: building the calibration program " + built.Describe() +
                         " (the machine is busy); retry when it is quiet");
    }
    return Internal("building the calibration program " + built.Describe() + ": " + built.stderr_data.substr(0, 2000));
  }
  struct Remove {
    Env* env;
    std::string p;
    ~Remove() { (void)env->RemoveAll(p); }
  } remove_exe{env, exe};

  // The harness's environment (cpu_backend.cpp): empty, PATH, and the thread
  // count the kernels get by default (all cores this process may use).
  ProcessSpec run;
  run.argv = {exe, Fixed(options.budget_s, 3)};
  for (double s : CalibrationSizes(hw)) run.argv.push_back(Fixed(s, 0));
  run.clear_env = true;
  run.env_set["PATH"] = "/usr/bin:/bin";
  run.env_set["OMP_NUM_THREADS"] = std::to_string(cores);
  run.timeout = std::chrono::seconds(300);

  json attempts = json::array();
  const Calibration* previous = options.previous ? &*options.previous : nullptr;
  std::vector<std::string> last_reasons;
  const int n_attempts = std::max(1, options.attempts);
  for (int attempt = 1; attempt <= n_attempts; ++attempt) {
    if (attempt > 1) env->SleepFor(std::chrono::nanoseconds(static_cast<int64_t>(options.retry_wait_s * 1e9)));
    MachineLoad before = SampleMachineLoad(env, options.quiet_sample_s);
    ACCELOPT_ASSIGN_OR_RETURN(auto ran, env->RunProcess(run));
    if (!ran.Succeeded())
      return Internal("calibration program " + ran.Describe() + ": " + ran.stderr_data.substr(0, 2000));
    auto raw = ParseJson(ran.stdout_data);
    if (!raw.ok()) return Internal("calibration output: " + raw.status().message());
    auto c = Calibration::FromRaw(*raw, hw);
    if (!c.ok()) return Internal(c.status().message());
    BusyCheck check = CheckBusy(*c, before, previous, options.thresholds);
    json seen = check.seen;
    seen["attempt"] = attempt;
    attempts.push_back(seen);
    last_reasons = check.reasons;
    if (check.busy && !options.force_busy && attempt < n_attempts) continue;
    if (check.busy && !options.force_busy) break;
    c->load_average = before.load_1m;
    c->measured_at_unix = env->NowMicros() / 1000000;
    c->seconds = (env->MonotonicNanos() - t0) / 1e9;
    json th = {{"max_load_per_core", options.thresholds.max_load_per_core},
               {"max_others_cpu", options.thresholds.max_others_cpu},
               {"max_steal", options.thresholds.max_steal},
               {"max_peak_spread", options.thresholds.max_peak_spread},
               {"max_bandwidth_spread", options.thresholds.max_bandwidth_spread},
               {"max_drop", options.thresholds.max_drop}};
    c->checks = {{"verdict", check.busy ? "forced" : "quiet"},
                 {"reasons", check.reasons},
                 {"attempts", attempts},
                 {"thresholds", th},
                 {"compared_with_previous", previous != nullptr}};
    return c;
  }
  std::string seen;
  for (const auto& r : last_reasons) seen += (seen.empty() ? "" : "; ") + r;
  return Unavailable("calibration refused: the machine is busy (" + seen + ") in " + std::to_string(n_attempts) +
                     (n_attempts == 1 ? " measurement" : " measurements") +
                     "; retry when it is quiet, or pass --force-busy");
}

Result<Calibration> CalibrateAndSave(const std::string& path, const CalibrationOptions& options) {
  Env* env = options.env;
  CalibrationOptions o = options;
  if (o.hardware.is_null()) o.hardware = HardwareInfo(env, o.compiler);
  if (!o.previous) {
    if (auto text = env->ReadFile(path); text.ok()) {
      if (auto j = ParseJson(*text); j.ok()) {
        if (auto c = Calibration::FromJson(*j);
            c.ok() && c->hardware.value("fingerprint", "") == o.hardware.value("fingerprint", ""))
          o.previous = *c;
      }
    }
  }
  ACCELOPT_ASSIGN_OR_RETURN(Calibration c, Calibrate(o));
  ACCELOPT_RETURN_IF_ERROR(env->CreateDirs(fs::path(path).parent_path().string()));
  ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic(path, Dump(c.ToJson(), 2) + "\n"));
  return c;
}

Result<Calibration> LoadOrCalibrate(const std::string& path, const CalibrationOptions& options) {
  Env* env = options.env;
  CalibrationOptions o = options;
  if (o.hardware.is_null()) o.hardware = HardwareInfo(env, o.compiler);
  if (auto text = env->ReadFile(path); text.ok()) {
    if (auto j = ParseJson(*text); j.ok()) {
      if (auto c = Calibration::FromJson(*j);
          c.ok() && c->hardware.value("fingerprint", "") == o.hardware["fingerprint"]) {
        if (c->format >= 3) return c;
        // Before format 3 the bandwidth had no non-temporal-store pass: an
        // honest streaming kernel could beat it. Measured again; if that is
        // refused (a busy machine), the old figures stay, marked.
        auto fresh = CalibrateAndSave(path, o);
        if (fresh.ok()) return fresh;
        c->checks["stale"] =
            "format " + std::to_string(c->format) +
            " (bandwidth without non-temporal stores); measuring again failed: " + fresh.status().message();
        return c;
      }
    }
  }
  return CalibrateAndSave(path, o);
}

}  // namespace accelopt::eval::cpu
