#include "evaluators/cpu/hardware.hpp"
#include "base/text.hpp"

#include <sched.h>

#include <algorithm>
#include <sstream>

#include "base/sha256.hpp"
#include "base/subprocess.hpp"

namespace accelopt::eval::cpu {
namespace {

// The file's text; "" when it cannot be read.
std::string ReadSmall(Env* env, const std::string& path) {
  auto text = env->ReadFile(path);
  return text.ok() ? *text : "";
}

int64_t ParseSize(const std::string& s) {  // "32768K", "32M"
  if (s.empty()) return 0;
  int64_t v = std::atoll(s.c_str());
  char unit = s.find('M') != std::string::npos ? 'M' : s.find('K') != std::string::npos ? 'K' : ' ';
  return unit == 'M' ? v << 20 : unit == 'K' ? v << 10 : v;
}

// "0-3,8" -> the CPUs it names that are in `set`.
int CountInSet(const std::string& list, const cpu_set_t& set) {
  int n = 0;
  std::stringstream in(list);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part.empty()) continue;
    int lo = std::atoi(part.c_str()), hi = lo;
    if (auto dash = part.find('-'); dash != std::string::npos) hi = std::atoi(part.c_str() + dash + 1);
    for (int c = lo; c <= hi && c < CPU_SETSIZE; ++c)
      if (c >= 0 && CPU_ISSET(c, &set)) ++n;
  }
  return n;
}

// Data and unified caches of the first CPU this process may use, ascending
// by level: {"level", "bytes" (one instance), "shared_cpus" (of this
// process's CPUs sharing that instance)}.
json CacheLevels(Env* env, const cpu_set_t& set) {
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &set)) ++first;
  if (first == CPU_SETSIZE) first = 0;
  json out = json::array();
  std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(first) + "/cache/";
  for (int i = 0; i < 16; ++i) {
    std::string dir = base + "index" + std::to_string(i) + "/";
    std::string type = Trim(ReadSmall(env, dir + "type"));
    if (type.empty()) break;
    if (type == "Instruction") continue;
    int level = std::atoi(Trim(ReadSmall(env, dir + "level")).c_str());
    int64_t bytes = ParseSize(Trim(ReadSmall(env, dir + "size")));
    int shared = CountInSet(Trim(ReadSmall(env, dir + "shared_cpu_list")), set);
    if (level <= 0 || bytes <= 0) continue;
    out.push_back({{"level", level}, {"bytes", bytes}, {"shared_cpus", std::max(1, shared)}});
  }
  return out;
}

}  // namespace

json HardwareInfo(Env* env, const std::string& compiler) {
  json h;
  std::istringstream cpuinfo(ReadSmall(env, "/proc/cpuinfo"));
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
  for (int c : env->AllowedCpus())
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  const int cores = std::max(1, CPU_COUNT(&set));
  std::string simd = flags.find(" avx512f ") != std::string::npos ? "avx512"
                     : flags.find(" avx2 ") != std::string::npos  ? "avx2"
                                                                  : "sse";
  int64_t mem = 0;
  std::istringstream meminfo(ReadSmall(env, "/proc/meminfo"));
  while (std::getline(meminfo, line))
    if (line.rfind("MemTotal:", 0) == 0) mem = std::atoll(line.c_str() + 9) * 1024;
  std::string compiler_version = "unknown";
  ProcessSpec spec;
  spec.argv = {compiler, "--version"};
  spec.timeout = std::chrono::seconds(10);
  if (auto r = env->RunProcess(spec); r.ok() && r->Succeeded())
    compiler_version = r->stdout_data.substr(0, r->stdout_data.find('\n'));
  h["cpu_model"] = model;
  h["cores"] = cores;
  h["simd"] = simd;
  h["fma"] = flags.find(" fma ") != std::string::npos;
  h["l3_bytes"] = ParseSize(Trim(ReadSmall(env, "/sys/devices/system/cpu/cpu0/cache/index3/size")));
  h["caches"] = CacheLevels(env, set);
  h["memory_bytes"] = mem;
  h["compiler"] = compiler_version;
  h["kernel"] = env->KernelRelease();
  h["fingerprint"] = Sha256Hex(model + "|" + std::to_string(cores) + "|" + simd + "|" + std::to_string(mem >> 30) +
                               "|" + compiler_version);
  return h;
}

}  // namespace accelopt::eval::cpu
