#include "evaluators/cpu/hardware.hpp"

#include <sched.h>
#include <sys/utsname.h>

#include <fstream>
#include <sstream>

#include "base/sha256.hpp"
#include "base/subprocess.hpp"

namespace accelopt::eval::cpu {
namespace {

std::string ReadSmall(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  size_t i = s.find_first_not_of(" \t");
  return i == std::string::npos ? "" : s.substr(i);
}

int64_t ParseSize(const std::string& s) {  // "32768K", "32M"
  if (s.empty()) return 0;
  int64_t v = std::atoll(s.c_str());
  char unit = s.find('M') != std::string::npos ? 'M' : s.find('K') != std::string::npos ? 'K' : ' ';
  return unit == 'M' ? v << 20 : unit == 'K' ? v << 10 : v;
}

}  // namespace

json HardwareInfo(const std::string& compiler) {
  json h;
  std::istringstream cpuinfo(ReadSmall("/proc/cpuinfo"));
  std::string line, model = "unknown", flags;
  while (std::getline(cpuinfo, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(line.substr(0, colon));
    if (key == "model name" && model == "unknown") model = Trim(line.substr(colon + 1));
    if (key == "flags" && flags.empty()) flags = " " + Trim(line.substr(colon + 1)) + " ";
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  std::string simd = flags.find(" avx512f ") != std::string::npos ? "avx512"
                     : flags.find(" avx2 ") != std::string::npos  ? "avx2"
                                                                   : "sse";
  int64_t mem = 0;
  std::istringstream meminfo(ReadSmall("/proc/meminfo"));
  while (std::getline(meminfo, line))
    if (line.rfind("MemTotal:", 0) == 0) mem = std::atoll(line.c_str() + 9) * 1024;
  std::string compiler_version = "unknown";
  ProcessSpec spec;
  spec.argv = {compiler, "--version"};
  spec.timeout = std::chrono::seconds(10);
  if (auto r = RunProcess(spec); r.ok() && r->Succeeded())
    compiler_version = r->stdout_data.substr(0, r->stdout_data.find('\n'));
  utsname u{};
  uname(&u);
  h["cpu_model"] = model;
  h["cores"] = cores;
  h["simd"] = simd;
  h["fma"] = flags.find(" fma ") != std::string::npos;
  h["l3_bytes"] = ParseSize(Trim(ReadSmall("/sys/devices/system/cpu/cpu0/cache/index3/size")));
  h["memory_bytes"] = mem;
  h["compiler"] = compiler_version;
  h["kernel"] = u.release;
  h["fingerprint"] = Sha256Hex(model + "|" + std::to_string(cores) + "|" + simd + "|" +
                               std::to_string(mem >> 30) + "|" + compiler_version);
  return h;
}

}  // namespace accelopt::eval::cpu
