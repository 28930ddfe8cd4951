// Shared helpers of the cpu backend tests.
#pragma once

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "evaluators/cpu/cpu_backend.hpp"

namespace accelopt::eval::cpu::testutil {

inline std::string Src() { return ACCELOPT_SOURCE_DIR; }
inline std::string CacheDir() { return std::string(ACCELOPT_BINARY_DIR) + "/evaluators-test-cache"; }

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A roofline so generous that nothing honest is flagged (1 PFLOP/s, 1 PB/s).
inline Calibration GenerousCalibration() {
  Calibration c;
  c.hardware = {{"fingerprint", "test"}, {"cores", 2}};
  c.peak_gflops = 1e6;
  c.bandwidth = {{1, 1e6}};
  return c;
}

inline CpuBackend MakeBackend(std::optional<Calibration> cal = GenerousCalibration()) {
  CpuBackendOptions o;
  o.env = Env::Default();
  o.root = Src();
  o.cache_dir = CacheDir();
  o.calibration = cal;
  return CpuBackend(o);
}

// Short timing: the tests check behaviour, not precision.
inline EvalSettings QuickSettings() {
  EvalSettings s;
  s.seeds = {0, 21};
  s.min_time_s = 0.02;
  s.min_samples = 3;
  s.max_rounds = 1;
  s.timeout_s = 60;
  return s;
}

inline EvalRequest Request(const std::string& problem_dir, const std::string& source, EvalSettings s) {
  EvalRequest r;
  r.backend = "cpu";
  r.problem = problem_dir;
  r.source = source;
  r.settings = s;
  return r;
}

}  // namespace accelopt::eval::cpu::testutil
