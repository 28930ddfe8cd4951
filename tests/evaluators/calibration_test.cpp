// Calibration without measuring anything: the busy checks on synthetic
// figures, the re-measure/refuse procedure with a scripted calibration
// program (an Env that fakes the compiler, the program and /proc), the
// working-set rule, the slot API, old files; and the daemon's gate between
// evaluations and a calibration. Nothing here is timed.
#include <boost/test/unit_test.hpp>

#include <deque>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "daemon/calibration_gate.hpp"
#include "evaluators/cpu/calibration.hpp"
#include "tests/fakes/evaluator/fake_backend.hpp"

using namespace accelopt;
using namespace accelopt::eval;
using namespace accelopt::eval::cpu;
namespace fs = std::filesystem;
namespace tt = boost::test_tools;

namespace {

constexpr double KiB = 1024, MiB = 1024 * 1024;

// A 2-core machine: 48 KiB L1 and 2 MiB L2 per core, a 32 MiB L3 shared by both.
json Hardware() {
  return {{"fingerprint", "fp-test"},
          {"cores", 2},
          {"l3_bytes", 32 * MiB},
          {"memory_bytes", 16.0 * 1024 * MiB},
          {"caches",
           {{{"level", 1}, {"bytes", 48 * KiB}, {"shared_cpus", 1}},
            {{"level", 2}, {"bytes", 2 * MiB}, {"shared_cpus", 1}},
            {{"level", 3}, {"bytes", 32 * MiB}, {"shared_cpus", 2}}}}};
}

// The calibration program's output: `peak_all`/`peak_one` GFLOP/s, one
// bandwidth point per (bytes, all-core, one-core), every trial spread `spread`.
json Raw(double peak_all, double peak_one, const std::vector<std::array<double, 3>>& bw, double spread = 0.01,
         double others = 0.0) {
  json pts = json::array();
  for (const auto& p : bw)
    pts.push_back({{"bytes", p[0]},
                   {"gbps", std::max(p[1], p[2])},
                   {"gbps_all_cores", p[1]},
                   {"gbps_one_core", p[2]},
                   {"spread_all_cores", spread},
                   {"spread_one_core", spread}});
  return {{"peak_gflops", std::max(peak_all, peak_one)},
          {"peak_gflops_all_cores", peak_all},
          {"peak_gflops_one_core", peak_one},
          {"peak_spread_all_cores", spread},
          {"peak_spread_one_core", spread},
          {"threads", 2},
          {"bandwidth", pts},
          {"others_cpu_fraction", others},
          {"steal_fraction", 0.0}};
}

// Quiet figures of the test machine, one point per level and beyond the LLC.
json QuietRaw(double scale = 1.0, double spread = 0.01, double others = 0.0) {
  return Raw(480 * scale, 240 * scale,
             {{{24 * KiB, 100 * scale, 150 * scale}},
              {{1 * MiB, 400 * scale, 130 * scale}},
              {{4.5 * MiB, 120 * scale, 40 * scale}},
              {{16 * MiB, 100 * scale, 35 * scale}},
              {{36 * MiB, 40 * scale, 20 * scale}},
              {{64 * MiB, 30 * scale, 15 * scale}}},
             spread, others);
}

Calibration FromRawOrDie(const json& raw) {
  auto c = Calibration::FromRaw(raw, Hardware());
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  return *c;
}

MachineLoad Quiet() { return MachineLoad{0.1, 0, 0.01, 0.0, 0.5}; }

std::string Joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "; ";
  return s;
}

// Fakes the compiler (succeeds without compiling), the calibration program
// (prints the next scripted output) and /proc (a quiet machine, unless
// `loadavg` says otherwise); sleeping takes no time.
class ScriptedEnv : public FakeClockEnv {
 public:
  template <typename... J>
  explicit ScriptedEnv(J... outputs) : FakeClockEnv(Env::Default()), outputs_{json(outputs)...} {}
  Result<ProcessResult> RunProcess(const ProcessSpec& spec) override {
    std::lock_guard lock(mu_);
    ProcessResult r;
    r.outcome = ProcessResult::Outcome::kExited;
    r.exit_code = 0;
    if (spec.argv.at(0) == "g++") return r;  // "compiled"
    runs.push_back(spec);
    if (outputs_.empty()) {
      r.exit_code = 1;
      r.stderr_data = "no more scripted outputs";
      return r;
    }
    r.stdout_data = Dump(outputs_.front());
    outputs_.pop_front();
    return r;
  }
  Result<std::string> ReadFile(const std::string& path) override {
    if (path == "/proc/loadavg") return loadavg;
    if (path == "/proc/stat") {
      stat_reads_ += 1;  // each read: 1 more jiffy busy per CPU (1%/s of a 100 Hz CPU over the 0.5 s window)
      std::string s = "cpu  0 0 0 0 0 0 0 0 0 0\n";
      for (int c = 0; c < 256; ++c)
        s += "cpu" + std::to_string(c) + " " + std::to_string(stat_reads_) + " 0 0 100000 0 0 0 0 0 0\n";
      return s;
    }
    return FakeClockEnv::ReadFile(path);
  }
  std::vector<ProcessSpec> runs;
  std::string loadavg = "0.10 0.20 0.30 1/100 4242\n";

 private:
  std::mutex mu_;
  std::deque<json> outputs_;
  int stat_reads_ = 0;
};

CalibrationOptions Options(ScriptedEnv* env, const std::string& dir) {
  CalibrationOptions o;
  o.work_dir = dir + "/work";
  o.hardware = Hardware();
  o.env = env;
  o.attempts = 3;
  o.retry_wait_s = 30;  // fake clock: instant
  return o;
}

std::string TempDir(const std::string& name) {
  std::string d = std::string(ACCELOPT_BINARY_DIR) + "/calibration-unit-test/" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(calibration)

// ---- busy checks (pure) -------------------------------------------------

BOOST_AUTO_TEST_CASE(a_quiet_measurement_passes_the_checks) {
  Calibration c = FromRawOrDie(QuietRaw());
  Calibration prev = FromRawOrDie(QuietRaw(1.05));  // 5% faster last time: noise, not busy
  BusyCheck b = CheckBusy(c, Quiet(), &prev, BusyThresholds{});
  BOOST_TEST(!b.busy, Joined(b.reasons));
  BOOST_TEST(b.seen["previous"]["peak_drop"].get<double>() == 1 - 1 / 1.05, tt::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(disagreeing_trials_are_busy) {
  Calibration c = FromRawOrDie(QuietRaw(1.0, /*spread=*/0.45));
  BusyCheck b = CheckBusy(c, Quiet(), nullptr, BusyThresholds{});
  BOOST_TEST(b.busy);
  BOOST_TEST(Joined(b.reasons).find("repeated trials disagree (all-core peak spread 45%") != std::string::npos,
             Joined(b.reasons));
  BOOST_TEST(b.seen["peak_spread_all_cores"].get<double>() == 0.45);
}

BOOST_AUTO_TEST_CASE(a_big_drop_below_the_previous_calibration_is_busy) {
  Calibration prev = FromRawOrDie(QuietRaw());
  Calibration c = FromRawOrDie(QuietRaw(0.59));  // 41% below
  BusyCheck b = CheckBusy(c, Quiet(), &prev, BusyThresholds{});
  BOOST_TEST(b.busy);
  std::string r = Joined(b.reasons);
  BOOST_TEST(
      r.find("peak 41% below the previous calibration of this machine (480 -> 283 GFLOP/s)") != std::string::npos, r);
  BOOST_TEST(r.find("bandwidth 41% below the previous calibration") != std::string::npos, r);
  // Another machine's calibration is no reference.
  prev.hardware["fingerprint"] = "other";
  BOOST_TEST(!CheckBusy(c, Quiet(), &prev, BusyThresholds{}).busy);
}

BOOST_AUTO_TEST_CASE(load_and_other_processes_are_busy) {
  Calibration c = FromRawOrDie(QuietRaw(1.0, 0.01, /*others=*/0.4));
  MachineLoad before{3.1, 2, 0.6, 0.0, 0.5};
  BusyCheck b = CheckBusy(c, before, nullptr, BusyThresholds{});
  BOOST_TEST(b.busy);
  std::string r = Joined(b.reasons);
  BOOST_TEST(r.find("load 3.1 on 2 cores") != std::string::npos, r);
  BOOST_TEST(r.find("other processes used 60% of the CPUs before measuring") != std::string::npos, r);
  BOOST_TEST(r.find("other processes used 40% of the CPUs while measuring") != std::string::npos, r);
}

BOOST_AUTO_TEST_CASE(machine_load_is_read_from_proc) {
  ScriptedEnv env;
  env.loadavg = "3.10 2.00 1.00 4/120 999\n";
  MachineLoad m = SampleMachineLoad(&env, 0.5);
  BOOST_TEST(m.load_1m == 3.1);
  BOOST_TEST(m.runnable_others == 3);
  BOOST_TEST(m.window_s == 0.5, tt::tolerance(1e-6));
  BOOST_TEST(m.busy_fraction == 0.01 / 0.5, tt::tolerance(1e-6));  // 1 jiffy per CPU in 0.5 s
}

// ---- the procedure: re-measure, refuse, force --------------------------

BOOST_AUTO_TEST_CASE(a_busy_measurement_is_repeated_then_accepted_when_quiet) {
  ScriptedEnv env(QuietRaw(1.0, 0.6), QuietRaw());
  auto c = Calibrate(Options(&env, TempDir("remeasure")));
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  BOOST_TEST(env.runs.size() == 2u);
  BOOST_TEST(c->checks["verdict"] == "quiet");
  BOOST_TEST(c->checks["attempts"].size() == 2u);
  BOOST_TEST(c->checks["attempts"][0]["busy"] == true);
  BOOST_TEST(c->checks["attempts"][1]["busy"] == false);
  BOOST_TEST(c->peak_gflops == 480.0);  // max(all 480, one 240 x 2)
  BOOST_TEST(c->cores == 2);
  // The program runs in the harness's environment, whatever the caller's is.
  const ProcessSpec& run = env.runs.front();
  BOOST_TEST(run.clear_env);
  BOOST_TEST(run.env_set.at("OMP_NUM_THREADS") == "2");
  BOOST_TEST(run.env_set.at("PATH") == "/usr/bin:/bin");
  BOOST_TEST(run.env_set.size() == 2u);
  // ... and is given the sizes for this machine's caches, one beyond the LLC.
  BOOST_TEST(run.argv.size() == 2 + CalibrationSizes(Hardware()).size());
  BOOST_TEST(std::stod(run.argv.back()) >= 2 * 32 * MiB - 768);
}

BOOST_AUTO_TEST_CASE(a_machine_busy_every_time_is_refused_with_what_was_seen) {
  ScriptedEnv env(QuietRaw(1.0, 0.6), QuietRaw(1.0, 0.6), QuietRaw(1.0, 0.6), QuietRaw());
  env.loadavg = "3.10 3.00 2.00 3/100 4242\n";
  std::string dir = TempDir("refuse");
  auto c = CalibrateAndSave(dir + "/calibration.json", Options(&env, dir));
  BOOST_REQUIRE(!c.ok());
  BOOST_TEST((c.status().code() == Code::kUnavailable));
  std::string m = c.status().message();
  BOOST_TEST(m.find("calibration refused: the machine is busy (load 3.1 on 2 cores; repeated trials disagree") == 0, m);
  BOOST_TEST(m.find("in 3 measurements; retry when it is quiet, or pass --force-busy") != std::string::npos, m);
  BOOST_TEST(env.runs.size() == 3u);  // bounded
  BOOST_TEST(!fs::exists(dir + "/calibration.json"));
}

BOOST_AUTO_TEST_CASE(force_busy_accepts_and_records_it) {
  ScriptedEnv env(QuietRaw(1.0, 0.6));
  CalibrationOptions o = Options(&env, TempDir("forced"));
  o.force_busy = true;
  auto c = Calibrate(o);
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  BOOST_TEST(env.runs.size() == 1u);
  BOOST_TEST(c->checks["verdict"] == "forced");
  BOOST_TEST(Dump(c->checks["reasons"]).find("repeated trials disagree") != std::string::npos);
  // Recorded in the JSON and read back.
  auto back = Calibration::FromJson(c->ToJson());
  BOOST_REQUIRE(back.ok());
  BOOST_TEST(back->checks == c->checks);
}

BOOST_AUTO_TEST_CASE(a_drop_below_the_previous_file_is_refused_and_the_file_kept) {
  std::string dir = TempDir("drop");
  std::string path = dir + "/calibration.json";
  {
    ScriptedEnv env(QuietRaw());
    BOOST_REQUIRE(CalibrateAndSave(path, Options(&env, dir)).ok());
  }
  std::string before = Env::Default()->ReadFile(path).value();
  ScriptedEnv env(QuietRaw(0.59), QuietRaw(0.59), QuietRaw(0.59));
  auto c = CalibrateAndSave(path, Options(&env, dir));
  BOOST_REQUIRE(!c.ok());
  BOOST_TEST(c.status().message().find("peak 41% below the previous calibration of this machine") != std::string::npos,
             c.status().message());
  BOOST_TEST(Env::Default()->ReadFile(path).value() == before);
  // A faster machine than last time is fine.
  ScriptedEnv faster(QuietRaw(1.3));
  auto f = CalibrateAndSave(path, Options(&faster, dir));
  BOOST_REQUIRE_MESSAGE(f.ok(), f.status().ToString());
  BOOST_TEST(f->checks["compared_with_previous"] == true);
  // LoadOrCalibrate uses the file of this fingerprint without measuring.
  ScriptedEnv none;
  auto loaded = LoadOrCalibrate(path, Options(&none, dir));
  BOOST_REQUIRE(loaded.ok());
  BOOST_TEST(none.runs.empty());
  BOOST_TEST(loaded->peak_gflops == f->peak_gflops);
}

// ---- the working-set rule -----------------------------------------------

BOOST_AUTO_TEST_CASE(working_sets_get_the_figure_of_the_level_they_fit_in) {
  Calibration c = FromRawOrDie(QuietRaw());
  // Whole machine: L1 96 KiB, L2 4 MiB, L3 32 MiB.
  BOOST_TEST(c.LlcBytes() == 32 * MiB);
  BOOST_TEST(c.LevelIndexFor(64 * KiB, 0) == 0);
  BOOST_TEST(c.LevelIndexFor(3 * MiB, 0) == 1);
  BOOST_TEST(c.LevelIndexFor(20 * MiB, 0) == 2);
  BOOST_TEST(c.LevelIndexFor(33 * MiB, 0) == 3);  // memory
  // Figures: in caches max(all, one x 2), beyond max(all, one), non-increasing.
  // 24K: 300  1M: 400  4.5M: 120  16M: 100  36M: 40  64M: 30
  BOOST_TEST(c.bandwidth.front().gbps == 400.0);     // lifted to the 1 MiB figure (non-increasing)
  BOOST_TEST(c.BandwidthGbpsFor(3 * MiB) == 400.0);  // L2: the 1 MiB point
  BOOST_TEST(c.BandwidthGbpsFor(5 * MiB) == 120.0);  // L3: the 4.5 MiB point
  // Just beyond L2 (<= 1.125 x 4 MiB) most of the working set still fits in
  // it: L2's figure bounds it (round 4; it was the 4.5 MiB point's 120).
  BOOST_TEST(c.BandwidthGbpsFor(4.2 * MiB) == 400.0);
  BOOST_TEST(c.BandwidthGbpsFor(4.6 * MiB) == 120.0);  // beyond that: L3, below its second point: its first
  BOOST_TEST(c.BandwidthGbpsFor(30 * MiB) == 100.0);   // L3: the 16 MiB point
  // Beyond the LLC: always a figure measured beyond it. A 58.7 MB problem
  // (suites/cpu/silu) gets the 36 MiB point's DRAM figure, not the 16 MiB one.
  BOOST_TEST(c.BandwidthGbpsFor(58720256) == 40.0);
  BOOST_TEST(c.BandwidthGbpsFor(33 * MiB) == 100.0);  // just beyond the LLC: its 16 MiB figure bounds it
  BOOST_TEST(c.BandwidthGbpsFor(37 * MiB) == 40.0);
  BOOST_TEST(c.BandwidthGbpsFor(1e10) == 30.0);
  // The same with a 48 MiB LLC: 58.7 MB lies between the LLC and the first
  // point beyond it (64 MiB), and still gets that point's figure, not the
  // 36 MiB (now in-LLC) one that "the largest size <= bytes" would give.
  Calibration big = c;
  big.caches[2].bytes = 48 * MiB;
  BOOST_TEST(big.LevelIndexFor(58720256, 0) == 3);
  BOOST_TEST(big.BandwidthGbpsFor(58720256) == 30.0);
  BOOST_TEST(big.BandwidthGbpsFor(40 * MiB) == 40.0);  // inside: the 36 MiB point
  // An upper bound: never below the figure of any larger working set.
  double prev = 1e300;
  for (double b = 1 * KiB; b < 1e10; b *= 1.1) {
    double bw = c.BandwidthGbpsFor(b);
    BOOST_TEST(bw <= prev);
    prev = bw;
  }
  // The roofline uses it.
  BOOST_TEST(c.PeakLatencyUs(0, 58720256) == 58720256 / 40e9 * 1e6, tt::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(the_calibrated_sizes_cover_every_level_and_beyond_the_llc) {
  json hw = Hardware();
  std::vector<double> sizes = CalibrationSizes(hw);
  Calibration c;
  c.hardware = hw;
  c.cores = 2;
  c.caches = FromRawOrDie(QuietRaw()).caches;
  std::set<int> levels;
  for (double s : sizes) levels.insert(c.LevelIndexFor(s, 0));
  BOOST_TEST(levels.size() == 4u);  // L1, L2, L3, memory
  BOOST_TEST(sizes.back() >= 2 * 32 * MiB - 768);
  // This machine's sysfs (a 480 MiB L3): the old sizes stopped at 256 MiB, inside it.
  hw["caches"][2]["bytes"] = 480 * MiB;
  sizes = CalibrationSizes(hw);
  BOOST_TEST(sizes.back() >= 960 * MiB - 768);
  // Without cache information: the fixed sizes.
  json bare = {{"cores", 2}};
  BOOST_TEST(CalibrationSizes(bare).size() == 6u);
}

// ---- slots --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(slots_of_fewer_cores_get_scaled_upper_bounds) {
  json raw = QuietRaw();
  raw["threads"] = 4;
  json hw = Hardware();
  hw["cores"] = 4;
  hw["caches"][2]["shared_cpus"] = 4;  // one 32 MiB L3 for the 4 cores
  auto cal = Calibration::FromRaw(raw, hw);
  BOOST_REQUIRE(cal.ok());
  const Calibration& c = *cal;
  BOOST_TEST(c.cores == 4);
  BOOST_TEST(c.peak_gflops == 960.0);  // max(480, 240 x 4)
  // Whole machine: <= 0 or >= cores, and the one-argument methods.
  for (int n : {0, -1, 4, 64}) {
    BOOST_TEST(c.PeakGflopsFor(n) == c.peak_gflops);
    BOOST_TEST(c.BandwidthGbpsFor(20 * MiB, n) == c.BandwidthGbpsFor(20 * MiB));
    BOOST_TEST(c.PeakLatencyUs(1e9, 20 * MiB, n) == c.PeakLatencyUs(1e9, 20 * MiB));
  }
  // peak_n = max(whole x n / cores, min(whole, one x n)).
  BOOST_TEST(c.PeakGflopsFor(1) == 240.0);
  BOOST_TEST(c.PeakGflopsFor(2) == 480.0);
  BOOST_TEST(c.PeakGflopsFor(3) == 720.0);
  // Bandwidth beyond the LLC: whole 40 (36 MiB), one core 20 -> 1 core 20, 3 cores 40.
  BOOST_TEST(c.BandwidthGbpsFor(40 * MiB, 1) == 20.0);
  BOOST_TEST(c.BandwidthGbpsFor(40 * MiB, 3) == 40.0);
  // In a cache: whole 160 at 4.5 MiB (L3 for 2 cores), one core 40 -> 2 cores max(80, min(160, 80)) = 80.
  BOOST_TEST(c.BandwidthGbpsFor(5 * MiB, 2) == 80.0);
  // Fewer cores, smaller private caches: 3 MiB is L3 for one core (L2 2 MiB).
  BOOST_TEST(c.LevelIndexFor(3 * MiB, 1) == 2);
  BOOST_TEST(c.LevelIndexFor(3 * MiB, 2) == 1);
  // Never above the whole machine, never below one core's own figure.
  for (int n = 1; n < 4; ++n)
    for (double b : {16 * KiB, 2 * MiB, 10 * MiB, 100 * MiB}) {
      BOOST_TEST(c.BandwidthGbpsFor(b, n) <= c.BandwidthGbpsFor(b));
      BOOST_TEST(c.PeakLatencyUs(1e9, b, n) >= c.PeakLatencyUs(1e9, b));
    }
  // Through JSON.
  auto back = Calibration::FromJson(c.ToJson());
  BOOST_REQUIRE(back.ok());
  BOOST_TEST(back->BandwidthGbpsFor(5 * MiB, 2) == 80.0);
  BOOST_TEST(back->PeakGflopsFor(1) == 240.0);
}

// ---- old files ----------------------------------------------------------

// What Calibration::ToJson wrote before format 2 (this machine's figures).
json OldFile(bool with_raw) {
  json raw = {{"peak_gflops", 298.7},
              {"peak_gflops_all_cores", 298.7},
              {"peak_gflops_one_core", 242.1},
              {"simd_bits", 512},
              {"threads", 2},
              {"bandwidth",
               {{{"bytes", 262140}, {"gbps", 127.3}, {"gbps_all_cores", 127.3}, {"gbps_one_core", 118.3}},
                {{"bytes", 16777212}, {"gbps", 59.4}, {"gbps_all_cores", 59.4}, {"gbps_one_core", 29.6}},
                {{"bytes", 268435452}, {"gbps", 29.7}, {"gbps_all_cores", 29.7}, {"gbps_one_core", 15.2}}}}};
  json j = {{"hardware", {{"fingerprint", "fp-old"}, {"cores", 2}, {"l3_bytes", 503316480}}},
            {"peak_gflops", 484.1},
            {"bandwidth",
             {{{"bytes", 262140}, {"gbps", 236.5}},
              {{"bytes", 16777212}, {"gbps", 59.4}},
              {{"bytes", 268435452}, {"gbps", 30.4}}}},
            {"seconds", 2.8},
            {"load_average", 0.35},
            {"measured_at_unix", 1700000000}};
  if (with_raw) j["raw"] = raw;
  return j;
}

BOOST_AUTO_TEST_CASE(old_files_load_and_derive_what_raw_gives) {
  auto c = Calibration::FromJson(OldFile(true));
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  BOOST_TEST(c->format == 1);
  BOOST_TEST(c->checks.is_null());
  BOOST_TEST(c->cores == 2);
  BOOST_TEST(c->peak_gflops_one_core == 242.1);
  BOOST_TEST(c->bandwidth_one_core.size() == 3u);
  BOOST_TEST(c->LlcBytes() == 503316480.0);  // from l3_bytes
  // Whole-machine figures as stored (today's numbers unchanged).
  BOOST_TEST(c->PeakGflopsFor(0) == 484.1);
  BOOST_TEST(c->BandwidthGbpsFor(58720256) == 59.4);
  BOOST_TEST(c->BandwidthGbpsFor(1e9) == 30.4);  // no point beyond its LLC: the largest one (the old rule)
  // Slots from raw.
  BOOST_TEST(c->PeakGflopsFor(1) == 242.1);  // max(484.1 / 2, min(484.1, 242.1))
  BOOST_TEST(c->BandwidthGbpsFor(58720256, 1) == std::max(59.4 / 2, 29.6));
  // Written back as format 2, read again: the same figures.
  auto again = Calibration::FromJson(c->ToJson());
  BOOST_REQUIRE(again.ok());
  BOOST_TEST(again->format == 1);  // the measurement's provenance stays
  BOOST_TEST(again->BandwidthGbpsFor(58720256, 1) == c->BandwidthGbpsFor(58720256, 1));
}

BOOST_AUTO_TEST_CASE(old_files_without_raw_are_whole_machine_only) {
  auto c = Calibration::FromJson(OldFile(false));
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  BOOST_TEST(c->peak_gflops_one_core == 0.0);
  BOOST_TEST(c->bandwidth_one_core.empty());
  BOOST_TEST(c->PeakGflopsFor(1) == 484.1);
  BOOST_TEST(c->BandwidthGbpsFor(58720256, 1) == 59.4);
  BOOST_TEST(c->PeakLatencyUs(1e9, 1e6, 1) == c->PeakLatencyUs(1e9, 1e6));
  // Without any cache information either: the largest size <= bytes.
  json j = OldFile(false);
  j["hardware"].erase("l3_bytes");
  auto bare = Calibration::FromJson(j);
  BOOST_REQUIRE(bare.ok());
  BOOST_TEST(bare->LevelIndexFor(1e6, 0) == -1);
  BOOST_TEST(bare->BandwidthGbpsFor(1e3) == 236.5);
  BOOST_TEST(bare->BandwidthGbpsFor(58720256) == 59.4);
  BOOST_TEST(bare->BandwidthGbpsFor(1e9) == 30.4);
}

// A file from before format 3 has no non-temporal-store figure: it is
// measured again; when that is refused, its figures stay, marked stale.
BOOST_AUTO_TEST_CASE(load_or_calibrate_measures_over_an_old_file_and_keeps_it_when_refused) {
  std::string dir = TempDir("old");
  json j = OldFile(true);
  j["hardware"]["fingerprint"] = Hardware()["fingerprint"];
  BOOST_REQUIRE(Env::Default()->WriteFileAtomic(dir + "/calibration.json", Dump(j)).ok());
  ScriptedEnv refused;  // no scripted output: every measurement fails
  auto c = LoadOrCalibrate(dir + "/calibration.json", Options(&refused, dir));
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  BOOST_TEST(!refused.runs.empty());
  BOOST_TEST(c->peak_gflops == 484.1);
  BOOST_TEST(c->format == 1);
  BOOST_TEST(c->checks.value("stale", "").find("format 1 (bandwidth without non-temporal stores)") == 0u,
             c->checks.dump());
  ScriptedEnv quiet(QuietRaw(1.3));
  auto fresh = LoadOrCalibrate(dir + "/calibration.json", Options(&quiet, dir));
  BOOST_REQUIRE_MESSAGE(fresh.ok(), fresh.status().ToString());
  BOOST_TEST(fresh->format == Calibration::kFormat);
  BOOST_TEST(!quiet.runs.empty());
  BOOST_TEST(!fresh->checks.contains("stale"));
  ScriptedEnv none;  // a format-3 file is used as it is
  auto again = LoadOrCalibrate(dir + "/calibration.json", Options(&none, dir));
  BOOST_REQUIRE(again.ok());
  BOOST_TEST(none.runs.empty());
}

// ---- the daemon's gate ----------------------------------------------------

BOOST_AUTO_TEST_CASE(the_gate_keeps_evaluations_and_calibration_apart) {
  auto fake = std::make_shared<testing::FakeBackend>("cpu");
  fake->SetDefault(testing::FakeBackend::Ok(100));
  fake->AddRule("slow", testing::FakeBackend::Ok(100), /*delay_ms=*/300);
  daemon::CalibrationGate gate(fake);
  EvalRequest slow;
  slow.backend = "cpu";
  slow.source = "slow";
  std::thread running([&] { gate.Evaluate(slow, nullptr); });
  while (gate.Running() == 0) std::this_thread::yield();
  std::atomic<bool> in_calibration{false};
  std::atomic<int> overlapped{0};
  std::thread later;
  bool ran = gate.Exclusive(std::chrono::seconds(30), [&] {
    in_calibration = true;
    BOOST_TEST(gate.Running() == 0);  // the slow one finished first
    later = std::thread([&] {         // starts during the calibration: waits for it
      EvalRequest r;
      r.backend = "cpu";
      r.source = "fast";
      gate.Evaluate(r, nullptr);
      if (in_calibration) overlapped++;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    BOOST_TEST(fake->calls() == 1);
    in_calibration = false;
  });
  BOOST_TEST(ran);
  if (later.joinable()) later.join();
  running.join();
  BOOST_TEST(overlapped == 0);
  BOOST_TEST(fake->calls() == 2);
  // Bounded: an evaluation that does not finish makes the calibration give up.
  std::thread stuck([&] { gate.Evaluate(slow, nullptr); });
  while (gate.Running() == 0) std::this_thread::yield();
  int still = 0;
  BOOST_TEST(!gate.Exclusive(
      std::chrono::milliseconds(10), [] { BOOST_FAIL("must not run"); }, &still));
  BOOST_TEST(still == 1);
  stuck.join();
  // A cancelled evaluation waiting at the gate returns at once.
  std::atomic<bool> cancel{true};
  gate.Exclusive(std::chrono::seconds(5), [&] {
    EvalResult r = gate.Evaluate(slow, &cancel);
    BOOST_TEST((r.status == EvalStatus::kCancelled));
  });
}

BOOST_AUTO_TEST_SUITE_END()
