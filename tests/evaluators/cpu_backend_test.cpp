#include <boost/test/unit_test.hpp>

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <memory>
#include <thread>

#include "evaluators/cpu/hardware.hpp"
#include "evaluators/problem.hpp"
#include "tests/evaluators/cpu_test_util.hpp"

using namespace accelopt;
using namespace accelopt::eval;
using namespace accelopt::eval::cpu;
using namespace accelopt::eval::cpu::testutil;
namespace fs = std::filesystem;

namespace {
const std::string kProblems = "tests/evaluators/problems/";

std::string Describe(const EvalResult& r) {
  return std::string(EvalStatusName(r.status)) + ": " + r.reason + "\n" + r.error_text.substr(0, 1500);
}
}  // namespace

BOOST_AUTO_TEST_SUITE(cpu_backend)

BOOST_AUTO_TEST_CASE(test_problem_baselines_pass_their_own_problems) {
  CpuBackend backend = MakeBackend();
  for (const char* name : {"silu", "matmul", "softmax"}) {
    std::string dir = kProblems + name;
    EvalResult r =
        backend.Evaluate(Request(dir, ReadText(Src() + "/" + dir + "/baseline.cpp"), QuickSettings()), nullptr);
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST((r.status == EvalStatus::kOk), Describe(r));
      BOOST_TEST(r.compiled);
      BOOST_TEST(r.correct);
      BOOST_REQUIRE(r.latency.has_value());
      BOOST_TEST(r.latency->median_us > 0);
      BOOST_TEST(r.latency->samples_us.size() >= 3u);
      BOOST_TEST(*r.max_rel_error < 2e-5);
      BOOST_TEST(r.percent_of_peak.has_value());
      BOOST_TEST(r.profile.count("achieved_gflops") == 1u);
      BOOST_TEST(r.sandbox.value("seccomp", false));
      BOOST_TEST(r.timings.total_s >= r.timings.measure_s);
    }
  }
}

BOOST_AUTO_TEST_CASE(an_honestly_faster_matmul_passes_and_is_measured_faster) {
  CpuBackend backend = MakeBackend();
  EvalSettings s = QuickSettings();
  s.min_samples = 5;
  s.max_rounds = 2;
  std::string dir = kProblems + "matmul";
  EvalResult base = backend.Evaluate(Request(dir, ReadText(Src() + "/" + dir + "/baseline.cpp"), s), nullptr);
  EvalResult fast =
      backend.Evaluate(Request(dir, ReadText(Src() + "/tests/evaluators/kernels/fast_matmul.cpp"), s), nullptr);
  BOOST_REQUIRE_MESSAGE(base.status == EvalStatus::kOk, Describe(base));
  BOOST_REQUIRE_MESSAGE(fast.status == EvalStatus::kOk, Describe(fast));
  BOOST_TEST_MESSAGE("matmul baseline " << base.latency->median_us << " us, fast " << fast.latency->median_us << " us");
  BOOST_TEST(fast.latency->median_us < base.latency->median_us);
  BOOST_TEST(*fast.percent_of_peak > *base.percent_of_peak);
}

// Whether this CPU has the instruction set a kernel's "// requires:" names.
bool CpuHas(const std::string& isa) {
  __builtin_cpu_init();
  if (isa == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == "avx512f") return __builtin_cpu_supports("avx512f");
  BOOST_FAIL("unknown requires: " << isa);
  return false;
}

// Busy-loop processes, killed when this goes out of scope.
// `pin` >= 0: each is pinned to that CPU.
struct CpuHogs {
  std::vector<pid_t> pids;
  explicit CpuHogs(int n, int pin = -1) {
    for (int i = 0; i < n; ++i) {
      pid_t p = fork();
      if (p == 0) {
        if (pin >= 0) {
          cpu_set_t set;
          CPU_ZERO(&set);
          CPU_SET(pin, &set);
          sched_setaffinity(0, sizeof set, &set);
        }
        for (;;) asm volatile("" ::: "memory");
      }
      if (p > 0) pids.push_back(p);
    }
  }
  ~CpuHogs() {
    for (pid_t p : pids) kill(p, SIGKILL);
    for (pid_t p : pids) waitpid(p, nullptr, 0);
  }
};

// Every honest kernel under tests/evaluators/kernels/ is accepted, on a quiet
// machine and with a CPU hog beside it, and its every timed call ran on a
// pool case its runner process had never seen. (A kernel that needs an
// instruction set this CPU lacks says so in a "// requires: avx512f" line
// and is skipped here.)
BOOST_AUTO_TEST_CASE(honest_kernels_are_accepted_also_beside_a_cpu_hog) {
  CpuBackend backend = MakeBackend();
  EvalSettings s = QuickSettings();
  s.max_rounds = 2;
  s.min_rounds = 2;
  static const std::regex kHeader(R"(^// (problem|requires|by hand): (.*)$)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(Src() + "/tests/evaluators/kernels"))
    if (e.path().extension() == ".cpp") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  BOOST_TEST(files.size() >= 5u);
  for (int hogs : {0, 1}) {
    std::unique_ptr<CpuHogs> hog = hogs ? std::make_unique<CpuHogs>(hogs) : nullptr;
    for (const auto& f : files) {
      const std::string text = ReadText(f.string());
      std::map<std::string, std::string> h;
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_match(line, m, kHeader)) h[m[1]] = m[2];
      }
      BOOST_TEST_CONTEXT(f.filename().string() << " with " << hogs << " CPU hog(s)") {
        BOOST_REQUIRE_MESSAGE(h.count("problem"), "a '// problem: DIR' line");
        if (h.count("requires") && !CpuHas(h["requires"])) {
          BOOST_TEST_MESSAGE("skipped: this CPU has no " << h["requires"]);
          continue;
        }
        if (h.count("by hand")) {  // too costly for the suite; checked with accelopt-eval (its header says how)
          BOOST_TEST_MESSAGE("by hand: " << h["by hand"]);
          continue;
        }
        EvalResult r = backend.Evaluate(Request(h["problem"], text, s), nullptr);
        BOOST_TEST((r.status == EvalStatus::kOk), Describe(r));
        BOOST_TEST(r.correct);
        if (r.status != EvalStatus::kOk) continue;  // the profile of a failed evaluation has none of the figures below
        BOOST_TEST(r.profile.count("first_sight_ratio") == 0u);  // no repeated inputs, no history check
        BOOST_TEST(r.profile.at("timing_pool_cases") >= 16);
        BOOST_TEST(r.profile.at("runner_processes") == 2);  // one per timing round
        // The evaluation takes each pool case at most once, whatever the
        // round (round 4; before, each runner process could take every
        // case: 262 calls beside 2 x 128 pool cases were seen under a hog);
        // the count also has the correctness calls, one per case.
        std::smatch checked;
        BOOST_REQUIRE(std::regex_search(r.reason, checked, std::regex("correct on ([0-9]+) cases")));
        BOOST_TEST(r.profile.at("timing_calls") <= r.profile.at("timing_pool_cases") + std::stod(checked[1].str()));
        BOOST_TEST(r.profile.at("handshake_overhead_us") > 0);
        BOOST_TEST(r.sandbox.value("landlock_abi", 0) >= 0);
      }
    }
  }
}

// A timing round during which another process held the slot's core is
// contended (the runner waited for its CPU: schedstat). It would be re-run if
// the slot were free after a pause; a hog pinned to the slot's only core
// keeps it busy, so each round counts (a re-run would repeat it), every one
// is contended whatever else the machine runs, and the verdict stays ok but
// says so (profile.contended, the stolen share, the reason): the search never
// ranks it against a clean figure (workflows/beam.cpp).
BOOST_AUTO_TEST_CASE(a_round_beside_a_process_on_the_slots_core_is_marked_and_re_run) {
  CpuBackendOptions o;
  o.env = Env::Default();
  o.root = Src();
  o.cache_dir = CacheDir();
  o.calibration = GenerousCalibration();
  cpu_set_t mine;
  BOOST_REQUIRE(sched_getaffinity(0, sizeof mine, &mine) == 0);
  int core = 0;
  while (core < CPU_SETSIZE && !CPU_ISSET(core, &mine)) ++core;
  CpuBackend backend(o);
  EvalSettings s = QuickSettings();
  s.cores = {core};
  s.max_rounds = 3;
  s.min_time_s = 0.2;
  CpuHogs hog(1, core);
  EvalResult r = backend.Evaluate(
      Request(kProblems + "silu", ReadText(Src() + "/" + kProblems + "silu/baseline.cpp"), s), nullptr);
  BOOST_TEST((r.status == EvalStatus::kOk), Describe(r));
  BOOST_TEST(r.profile.at("contended") == 1.0);
  BOOST_TEST(r.profile.at("contended_rounds") == 3.0);  // min_rounds (3, capped at max_rounds): none clean
  BOOST_TEST(r.profile.at("runner_processes") == 3.0);
  BOOST_TEST(r.profile.at("stolen_share") > 0.2);
  BOOST_TEST(r.reason.find("timed beside other processes") != std::string::npos, r.reason);
}

// An output that is zero in every case cannot tell a kernel that writes zeros
// from a correct one: the judge refuses the problem instead of passing it.
BOOST_AUTO_TEST_CASE(a_problem_whose_output_is_always_zero_is_refused) {
  fs::path dir = fs::path(CacheDir()) / "zero-problem";
  fs::create_directories(dir);
  std::string pj = ReadText(Src() + "/" + kProblems + "silu/problem.json");
  std::ofstream(dir / "problem.json") << pj;
  std::ofstream(dir / "reference.cpp")
      << "#include <cstdint>\nextern \"C\" void silu_reference(const double*, double* out, int64_t M, int64_t N) "
         "{ for (int64_t i = 0; i < M * N; ++i) out[i] = 0; }\n";
  const std::string zeros =
      "#include <cstdint>\nextern \"C\" void silu(const float*, float* out, int64_t M, int64_t N) "
      "{ for (int64_t i = 0; i < M * N; ++i) out[i] = 0; }\n";
  std::ofstream(dir / "baseline.cpp") << zeros;
  CpuBackend backend = MakeBackend();
  EvalResult r = backend.Evaluate(Request(dir.string(), zeros, QuickSettings()), nullptr);
  BOOST_TEST((r.status == EvalStatus::kInternalError), Describe(r));
  BOOST_TEST(r.reason.find("zero in every case") != std::string::npos, r.reason);
  BOOST_TEST(!r.correct);
}

BOOST_AUTO_TEST_CASE(a_comparison_measures_both_kernels_interleaved_with_an_interval) {
  CpuBackend backend = MakeBackend();
  EvalSettings s = QuickSettings();
  s.max_rounds = 2;
  std::string dir = kProblems + "matmul";
  EvalRequest req = Request(dir, ReadText(Src() + "/tests/evaluators/kernels/fast_matmul.cpp"), s);
  req.compare_source = ReadText(Src() + "/" + dir + "/baseline.cpp");
  EvalResult r = backend.Evaluate(req, nullptr);
  BOOST_REQUIRE_MESSAGE(r.status == EvalStatus::kOk, Describe(r));
  BOOST_REQUIRE(r.comparison.is_object());
  const json& c = r.comparison;
  BOOST_TEST(c.at("baseline_samples_us").size() == r.latency->samples_us.size());  // paired, one run
  // The speedup is the median of the paired ratios of every round, at least
  // the kept round's pairs.
  BOOST_TEST(c.at("pairs").get<size_t>() >= r.latency->samples_us.size());
  BOOST_TEST(c.at("speedup_low").get<double>() <= c.at("speedup").get<double>());
  BOOST_TEST(c.at("speedup").get<double>() <= c.at("speedup_high").get<double>());
  BOOST_TEST(c.at("speedup").get<double>() > 1.0, "fast matmul vs its baseline: " << Dump(c));
  // Round trip through the protocol keeps it.
  auto back = EvalResult::FromJson(r.ToJson());
  BOOST_REQUIRE(back.ok());
  BOOST_TEST(back->comparison == r.comparison);

  // A comparison kernel that is wrong is the problem's fault: internal error, not the candidate's.
  req.compare_source =
      "#include <cstdint>\nextern \"C\" void matmul(const float*, const float*, float* C, int64_t M, "
      "int64_t K, int64_t N) { for (int64_t i = 0; i < M * N; ++i) C[i] = 0; }\n";
  EvalResult bad = backend.Evaluate(req, nullptr);
  BOOST_TEST((bad.status == EvalStatus::kInternalError), Describe(bad));
  BOOST_TEST(bad.reason.find("comparison kernel") != std::string::npos, bad.reason);
}

// Every file under tests/evaluators/cheats/ declares, in its first comment
// lines, the problem it targets, the status it must get and a piece of the
// reason; optional settings override the quick defaults. A cheat whose trick
// only buys time (e.g. a slowed clock) and otherwise does the honest work is
// "expect: ok" with "no_faster_than: F": it must measure at least F x the
// median of the honest kernel named by "compare_with: FILE" (default: the
// problem's baseline.cpp), measured interleaved with it in the same judge run
// (the side-by-side comparison), never against a figure from another time.
// "compare_with" alone (without no_faster_than) runs the cheat side by side
// too: an attack on the comparison itself. "unbatched: ok" marks a cheat
// that can only cheat inside a batch of calls: when the judge timed it
// unbatched (calls_per_sample 1: its correctness calls were too slow to
// batch, seen with a fresh clone's ctest beside two builds and a CPU hog),
// every call did the honest work and "ok" is the right verdict.
// "never_in_text: W" (a runner that speaks): W is in neither reason nor
// error_text.
BOOST_AUTO_TEST_CASE(every_cheat_is_rejected_with_a_clear_reason) {
  CpuBackend backend = MakeBackend();
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(Src() + "/tests/evaluators/cheats"))
    if (e.path().extension() == ".cpp") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  BOOST_TEST(files.size() >= 15u);
  static const std::regex kHeader(
      R"(^// (problem|expect|reason|settings|no_faster_than|compare_with|unbatched|never_in_text): (.*)$)");
  for (const auto& f : files) {
    std::string text = ReadText(f.string());
    std::map<std::string, std::string> h;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (std::regex_match(line, m, kHeader)) h[m[1]] = m[2];
    }
    BOOST_TEST_CONTEXT(f.filename().string()) {
      BOOST_REQUIRE(h.count("problem") && h.count("expect") && h.count("reason"));
      EvalSettings s = QuickSettings();
      if (h.count("settings")) {
        json merged = s.ToJson();
        merged.update(*ParseJson(h["settings"]));
        auto parsed = EvalSettings::FromJson(merged);
        BOOST_REQUIRE(parsed.ok());
        s = *parsed;
      }
      if (h.count("no_faster_than")) {
        // Enough timed pairs for a 95% interval of the speedup (at least 6:
        // stats::ExactMedianInterval); the quick defaults give 3.
        s.min_samples = std::max(s.min_samples, 8);
        s.max_rounds = std::max(s.max_rounds, 2);
      }
      EvalRequest req = Request(kProblems + h["problem"], text, s);
      if (h.count("no_faster_than") || h.count("compare_with")) {
        const std::string other =
            h.count("compare_with") ? h["compare_with"] : kProblems + h["problem"] + "/baseline.cpp";
        req.compare_source = ReadText(Src() + "/" + other);
        BOOST_REQUIRE_MESSAGE(!req.compare_source.empty(), "compare_with: cannot read " << other);
      }
      auto t0 = std::chrono::steady_clock::now();
      EvalResult r = backend.Evaluate(req, nullptr);
      double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (h.count("unbatched") && r.correct && r.profile.count("calls_per_sample") &&
          r.profile.at("calls_per_sample") <= 1) {
        BOOST_TEST_MESSAGE(f.filename().string() << ": timed unbatched (" << Describe(r)
                                                 << "): nothing to replay, expecting " << h["unbatched"]);
        h["expect"] = h["unbatched"];
        h["reason"] = "correct on";
      }
      BOOST_TEST(EvalStatusName(r.status) == h["expect"], Describe(r));
      // "reason: a | b" accepts either piece (a cheat that races the harness
      // may be caught by more than one check, depending on scheduling).
      bool reason_ok = false;
      std::string alts = h["reason"];
      for (size_t pos = 0; pos <= alts.size();) {
        size_t bar = alts.find(" | ", pos);
        std::string piece = alts.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos);
        if (!piece.empty() && r.reason.find(piece) != std::string::npos) reason_ok = true;
        if (bar == std::string::npos) break;
        pos = bar + 3;
      }
      BOOST_TEST(reason_ok, "reason: " << r.reason << " (expected: " << alts << ")");
      if (h["expect"] != "ok") BOOST_TEST(!r.correct);
      // "never_in_text: W": the runner's own words W reach neither the
      // reason nor error_text (what a prompt may show), only the human's
      // runner_diagnostics.
      if (h.count("never_in_text")) {
        BOOST_TEST(r.reason.find(h["never_in_text"]) == std::string::npos, Describe(r));
        BOOST_TEST(r.error_text.find(h["never_in_text"]) == std::string::npos, Describe(r));
      }
      if (h.count("no_faster_than") && r.latency) {
        // Bought time = even the low end of the ~95% interval of the
        // speedup over the honest kernel, measured interleaved in the same
        // judge run, is above 1 / no_faster_than (on a loaded machine the
        // interval widens instead of a lucky sample failing the test).
        BOOST_REQUIRE(r.comparison.is_object());
        BOOST_TEST(r.comparison.at("pairs").get<int>() >= 6, Dump(r.comparison));
        const double other_us = r.comparison.at("baseline_median_us").get<double>();
        const double low = r.comparison.at("speedup_low").get<double>();
        const double limit = 1.0 / std::stod(h["no_faster_than"]);
        BOOST_TEST(low <= limit, "measured " << r.latency->median_us << " us beside the honest kernel's " << other_us
                                             << " us, speedup " << r.comparison.at("speedup").get<double>()
                                             << "x with its interval's low end " << low << "x above " << limit
                                             << "x: the trick bought time (" << f.filename().string() << ")");
      }
      BOOST_TEST(took < s.timeout_s + s.compile_timeout_s + 30);  // the evaluator itself never hangs
    }
  }
}

BOOST_AUTO_TEST_CASE(faster_than_the_roofline_is_suspicious) {
  Calibration slow = GenerousCalibration();
  slow.peak_gflops = 1e-3;  // a machine this slow could not run silu in microseconds
  slow.bandwidth = {{1, 1e-3}};
  CpuBackend backend = MakeBackend(slow);
  std::string dir = kProblems + "silu";
  EvalResult r =
      backend.Evaluate(Request(dir, ReadText(Src() + "/" + dir + "/baseline.cpp"), QuickSettings()), nullptr);
  BOOST_TEST((r.status == EvalStatus::kSuspicious), Describe(r));
  BOOST_TEST(r.reason.find("roofline") != std::string::npos);
  BOOST_TEST(*r.percent_of_peak > 100);

  CpuBackend normal = MakeBackend();
  EvalSettings s = QuickSettings();
  s.baseline_latency_us = 1e9;  // "the baseline took 1000 s": any real kernel is implausibly faster
  EvalResult r2 = normal.Evaluate(Request(dir, ReadText(Src() + "/" + dir + "/baseline.cpp"), s), nullptr);
  BOOST_TEST((r2.status == EvalStatus::kSuspicious), Describe(r2));
  BOOST_TEST(r2.reason.find("implausible speedup") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(cancel_stops_a_running_evaluation) {
  CpuBackend backend = MakeBackend();
  EvalSettings s = QuickSettings();
  s.timeout_s = 120;
  std::atomic<bool> cancel{false};
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    cancel = true;
  });
  auto t0 = std::chrono::steady_clock::now();
  EvalResult r = backend.Evaluate(
      Request(kProblems + "silu", ReadText(Src() + "/tests/evaluators/cheats/spin_forever.cpp"), s), &cancel);
  t.join();
  BOOST_TEST((r.status == EvalStatus::kCancelled), Describe(r));
  BOOST_TEST((std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30)));
}

BOOST_AUTO_TEST_CASE(a_missing_problem_is_an_internal_error_not_a_crash) {
  CpuBackend backend = MakeBackend();
  EvalResult r = backend.Evaluate(Request("tests/evaluators/problems/nope", "int x;", QuickSettings()), nullptr);
  BOOST_TEST((r.status == EvalStatus::kInternalError));
  BOOST_TEST(r.reason.find("problem.json") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(calibration_measures_saves_and_reloads) {
  std::string dir = CacheDir() + "/calibration-test";
  fs::remove_all(dir);
  CalibrationOptions co;
  co.env = Env::Default();
  co.work_dir = dir + "/work";
  co.budget_s = 0.05;
  co.force_busy = true;  // test machines are busy; the figures are not compared here
  auto t0 = std::chrono::steady_clock::now();
  auto c = LoadOrCalibrate(dir + "/calibration.json", co);
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  BOOST_TEST((std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)));
  BOOST_TEST(c->peak_gflops > 0.1);
  BOOST_TEST(c->bandwidth.size() == CalibrationSizes(c->hardware).size());
  BOOST_TEST(c->bandwidth.size() >= 6u);
  for (const auto& p : c->bandwidth) BOOST_TEST(p.gbps > 0.01);
  BOOST_TEST(c->hardware.value("fingerprint", "").size() == 64u);
  BOOST_TEST(c->cores == c->hardware.value("cores", 0));
  BOOST_TEST(c->peak_gflops_one_core > 0.1);
  BOOST_TEST(c->bandwidth_one_core.size() == c->bandwidth.size());
  BOOST_TEST(c->checks["attempts"].size() >= 1u);
  BOOST_TEST(c->raw.contains("others_cpu_fraction"));
  BOOST_TEST(c->raw["bandwidth"][0].contains("spread_all_cores"));
  if (c->LlcBytes() > 0) BOOST_TEST(c->bandwidth.back().bytes > c->LlcBytes());  // a point beyond the LLC
  BOOST_TEST(fs::exists(dir + "/calibration.json"));
  auto again = LoadOrCalibrate(dir + "/calibration.json", co);  // from the file: identical
  BOOST_REQUIRE(again.ok());
  BOOST_TEST(again->peak_gflops == c->peak_gflops);
  BOOST_TEST(again->measured_at_unix == c->measured_at_unix);
  // The roofline takes the larger of compute time and memory time.
  double lat = c->PeakLatencyUs(1e9, 1e3);
  BOOST_TEST(lat == 1e9 / (c->peak_gflops * 1e9) * 1e6, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(calibration_on_a_machine_kept_busy_is_refused) {
  std::string dir = CacheDir() + "/calibration-busy-test";
  fs::remove_all(dir);
  CalibrationOptions co;
  co.env = Env::Default();
  co.work_dir = dir + "/work";
  co.budget_s = 0.05;
  co.attempts = 2;
  co.retry_wait_s = 0.1;
  int cores = std::max(1, HardwareInfo(Env::Default()).value("cores", 1));
  CpuHogs hogs(cores);  // one per core: the measurement gets about half of each
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto c = CalibrateAndSave(dir + "/calibration.json", co);
  BOOST_REQUIRE(!c.ok());
  std::string m = c.status().message();
  BOOST_TEST(m.find("calibration refused: the machine is busy (") == 0, m);
  BOOST_TEST(m.find("other processes used") != std::string::npos, m);
  BOOST_TEST(m.find("in 2 measurements") != std::string::npos, m);
  BOOST_TEST(!fs::exists(dir + "/calibration.json"));
  // --force-busy takes it, and records what was seen.
  co.force_busy = true;
  co.attempts = 1;
  auto forced = CalibrateAndSave(dir + "/calibration.json", co);
  BOOST_REQUIRE_MESSAGE(forced.ok(), forced.status().ToString());
  BOOST_TEST(forced->checks["verdict"] == "forced");
  BOOST_TEST(forced->checks["attempts"][0]["before"]["busy_fraction"].get<double>() > 0.5);
  BOOST_TEST(fs::exists(dir + "/calibration.json"));
}

BOOST_AUTO_TEST_SUITE_END()
