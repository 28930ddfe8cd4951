#include "workflows/prompts_cpu.hpp"
#include "base/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace accelopt::workflows {

namespace {

std::string Fixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

// Binary sizes: "48 KiB", "2 MiB", "480 MiB", "23.5 GiB".
std::string Size(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char b[64];
  std::snprintf(b, sizeof b, bytes >= 100 ? "%.0f" : bytes >= 10 ? "%.1f" : "%.2f", bytes);
  std::string n = b;
  if (n.find('.') != std::string::npos) {
    while (n.back() == '0') n.pop_back();
    if (n.back() == '.') n.pop_back();
  }
  return n + " " + units[u];
}

std::string Str(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : "";
}

double Number(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_number() ? o[key].get<double>() : 0;
}

int SimdLanes(const std::string& simd) {
  if (simd == "avx512") return 16;
  if (simd == "avx2") return 8;
  if (simd == "sse") return 4;
  return 0;
}

struct Level {
  int level = 0;
  double bytes = 0, capacity = 0;
  int shared = 1;
};

std::string DistributionText(const json& d) {
  const std::string kind = Str(d, "kind");
  if (kind == "normal")
    return "normal(mean " + FormatSignificant(Number(d, "mean")) + ", std " + FormatSignificant(Number(d, "std")) + ")";
  if (kind == "uniform")
    return "uniform[" + FormatSignificant(Number(d, "low")) + ", " + FormatSignificant(Number(d, "high")) + "]";
  if (kind == "abs_normal") {
    std::string s = "|normal(0, " + FormatSignificant(Number(d, "std")) + ")|";
    if (Number(d, "offset") != 0) s += " + " + FormatSignificant(Number(d, "offset"));
    return s;
  }
  if (kind == "constant") return "the constant " + FormatSignificant(Number(d, "value"));
  return kind.empty() ? "unspecified" : kind;
}

}  // namespace

std::string CpuCompileCommand() { return "g++ -std=c++17 -O3 -march=native -fopenmp -fPIC -shared"; }

std::string CpuHardwareProse(const json& cal) {
  if (!cal.is_object() || cal.empty()) return "(none recorded)\n";
  if (!cal.contains("hardware") || !cal.contains("peak_gflops")) return RenderFacts(cal);
  const json& hw = cal["hardware"];
  const int cores = static_cast<int>(Number(cal, "cores") > 0 ? Number(cal, "cores") : Number(hw, "cores"));
  const std::string simd = Str(hw, "simd");
  std::string out;
  out += "- CPU: " + (Str(hw, "cpu_model").empty() ? std::string("unknown model") : Str(hw, "cpu_model")) + ", " +
         std::to_string(cores) +
         " cores for the whole machine (a kernel runs on the cores of its evaluation slot, "
         "at most these; OMP_NUM_THREADS is set to the slot's cores).\n";
  if (!simd.empty()) {
    out += "- SIMD: " + simd;
    if (int lanes = SimdLanes(simd)) {
      out += " (" + std::to_string(lanes * 32) + "-bit vectors, " + std::to_string(lanes) + " fp32 lanes)";
    }
    out += hw.value("fma", false) ? ", with FMA" : ", no FMA";
    out += "; cache lines are 64 bytes.\n";
  }
  std::vector<Level> levels;
  for (const auto& c : cal.value("caches", json::array())) {
    Level l;
    l.level = static_cast<int>(Number(c, "level"));
    l.bytes = Number(c, "bytes");
    l.shared = std::max(1, static_cast<int>(Number(c, "shared_cpus")));
    l.capacity = l.bytes * std::ceil(static_cast<double>(std::max(cores, 1)) / l.shared);
    levels.push_back(l);
  }
  if (!levels.empty()) {
    out += "- Caches:";
    for (size_t i = 0; i < levels.size(); ++i) {
      const Level& l = levels[i];
      out += std::string(i ? "," : "") + " L" + std::to_string(l.level) + " " + Size(l.bytes) +
             (l.shared <= 1 ? " per core" : " shared by " + std::to_string(l.shared) + " cores");
    }
    out += ".\n";
  }
  if (Number(hw, "memory_bytes") > 0) out += "- Memory: " + Size(Number(hw, "memory_bytes")) + ".\n";
  if (!Str(hw, "compiler").empty()) out += "- Compiler: " + Str(hw, "compiler") + ".\n";
  out += "- Calibrated fp32 FMA peak (measured on this machine, the roofline's compute side): " +
         Fixed(Number(cal, "peak_gflops"), 1) + " GFLOP/s on all cores";
  if (Number(cal, "peak_gflops_one_core") > 0) {
    out += ", " + Fixed(Number(cal, "peak_gflops_one_core"), 1) + " GFLOP/s on one core";
  }
  out += ".\n";
  const json bw = cal.value("bandwidth", json::array());
  const json one = cal.value("bandwidth_one_core", json::array());
  if (!bw.empty()) {
    out +=
        "- Calibrated streaming bandwidth (reads + writes, GB/s = 1e9 bytes/s; the roofline's memory side "
        "uses the figure of the level the problem's bytes lie in), by working-set size:\n";
    for (size_t i = 0; i < bw.size(); ++i) {
      const double bytes = Number(bw[i], "bytes");
      std::string where = "memory";
      for (const Level& l : levels) {
        if (bytes <= l.capacity) {
          where = "L" + std::to_string(l.level);
          break;
        }
      }
      if (levels.empty()) where = "";
      out += "  - " + Size(bytes) + (where.empty() ? "" : " (" + where + ")") + ": " + Fixed(Number(bw[i], "gbps"), 1) +
             " GB/s all cores";
      if (i < one.size()) out += ", " + Fixed(Number(one[i], "gbps"), 1) + " GB/s one core";
      out += "\n";
    }
  }
  return out;
}

std::string CpuCorrectness(const json& p) {
  std::string out =
      "A separate judge process checks every call it makes, correctness calls and timed calls "
      "alike:\n";
  out +=
      "- Each output is compared in double precision with a trusted double-precision reference: the "
      "relative L2 error ||out - ref|| / ||ref|| must not exceed " +
      (p.contains("tolerance") && p["tolerance"].is_number() ? FormatSignificant(p["tolerance"].get<double>())
                                                             : std::string("the problem's tolerance")) +
      "; any NaN or Inf fails.\n";
  std::string inputs;
  for (const auto& param : p.value("params", json::array())) {
    if (Str(param, "kind") != "input" || !param.contains("distribution")) continue;
    inputs +=
        std::string(inputs.empty() ? "" : "; ") + Str(param, "name") + " ~ " + DistributionText(param["distribution"]);
  }
  out += "- Inputs are drawn from secret seeds (they cannot be predicted or recognized)";
  out += inputs.empty() ? ".\n" : ": " + inputs + ".\n";
  out += "- Extra cases: a copy of the first case with a few input elements changed";
  std::string adv;
  for (const auto& a : p.value("adversarial", json::array())) {
    adv += std::string(adv.empty() ? "" : "; ") + "'" + Str(a, "case") + "' with " + Str(a, "param") + " ~ " +
           DistributionText(a.value("distribution", json::object()));
  }
  out += adv.empty() ? ".\n" : ", and adversarial cases: " + adv + ".\n";
  out +=
      "- Every output element is filled with NaN before each call: write all of it on every call.\n"
      "- Inputs are read-only: they must be bit-identical after the call.\n"
      "- A kernel whose time depends on having seen the inputs before (caching, memoization) is "
      "rejected as suspicious; so is one faster than the calibrated roofline.\n";
  return out;
}

const BackendPrompts& CpuPrompts() {
  static const BackendPrompts kCpu = [] {
    BackendPrompts b;
    b.name = "cpu";
    b.intro =
        "The kernel is one C++17 source file that defines an extern \"C\" function. The evaluator compiles it "
        "into a shared object with\n    " +
        CpuCompileCommand() +
        " kernel.cpp\n(no -ffast-math: the compiler keeps the written order of floating-point operations, so "
        "it will not vectorize a reduction by itself), loads it into a sandboxed process pinned to the "
        "cores of one evaluation slot, and times many calls with its own clock. The goal is a lower "
        "latency, measured as % of the roofline peak of this machine.";
    b.rules =
        "Rules (what the evaluator checks):\n"
        "- Allowed: standard C++17 and its library headers, <cmath>, <immintrin.h> with SSE/AVX/AVX2/AVX-512 "
        "fp32 and fp64 intrinsics and FMA, OpenMP (#pragma omp, omp_* functions except omp_get_wtime), "
        "std::thread and pthreads, heap allocation (malloc, new, aligned_alloc), libm and its vector variants.\n"
        "- Forbidden, refused before it runs (by name in the source and by instruction in the compiled "
        "object, whatever this CPU supports): reduced-precision types, intrinsics and instructions "
        "(_Float16, __bf16, F16C, AVX512-FP16, AVX512-BF16, AVX-NE-CONVERT, VNNI and AVX-VNNI, AMX tiles "
        "and _tile_*), inline assembly, rdtsc and other clocks (std::chrono, "
        "std::this_thread, clock_gettime, omp_get_wtime), system calls, files, sockets, processes, printing "
        "or environment access, #include \"...\" or paths with '..' (include system headers as <name>).\n"
        "- Never lower the numeric precision: no narrower types for data or accumulators, no approximate "
        "math that changes results beyond the tolerance.\n"
        "- Keep the function's name and signature exactly as given, with C linkage.\n"
        "- Do not cache results between calls, read timers, change thread affinity or special-case inputs; "
        "the kernel may use every core of its slot and no more. Every call gets inputs it has never seen "
        "and every output is checked in full, so remembering earlier calls only costs time.\n";
    b.correctness = CpuCorrectness;
    b.hardware = CpuHardwareProse;
    b.fields = {
        {"flops", "floating-point operations of one call, counted by the problem's formula (not measured)"},
        {"bytes", "bytes one call must move at least (inputs read + outputs written), by the problem's formula"},
        {"arithmetic_intensity",
         "flops / bytes (FLOP/byte); far below the machine's peak GFLOP/s divided by "
         "its bandwidth means memory-bound"},
        {"achieved_gflops", "flops / measured latency (GFLOP/s)"},
        {"achieved_gbps", "bytes / measured latency (GB/s, 1e9 bytes/s)"},
        {"compute_utilization_pct", "achieved_gflops as % of the slot's calibrated fp32 FMA peak"},
        {"memory_utilization_pct",
         "achieved_gbps as % of the calibrated bandwidth of the cache level (or memory) the problem's bytes "
         "lie in"},
        {"roofline_peak_gflops", "the slot's calibrated fp32 FMA peak used by the roofline (GFLOP/s)"},
        {"roofline_bandwidth_gbps", "the calibrated bandwidth used by the roofline for this working set (GB/s)"},
        {"avg_cores_busy",
         "the kernel's CPU time / wall time over the timed calls: about 1 for one thread, "
         "up to slot_cores when every core works"},
        {"omp_threads", "OMP_NUM_THREADS the kernel runs with (= the slot's cores)"},
        {"slot_cores", "cores the kernel is pinned to"},
        {"runner_max_rss_mb", "peak resident memory of the process running the kernel (MiB)"},
        {"kernel_object_bytes", "size of the compiled shared object (bytes)"},
    };
    b.planning =
        "How to plan:\n"
        "1. Start from the profile: is the kernel far from the roofline on the compute side or the memory "
        "side? Is it using every core (avg_cores_busy vs slot_cores) and the SIMD width?\n"
        "2. Read the current kernel with that in mind and find the inefficiency that costs the most.\n"
        "3. Think of: multithreading across the slot's cores (OpenMP), explicit SIMD (intrinsics or "
        "#pragma omp simd, with several accumulators for reductions), loop order for contiguous access, "
        "tiling/blocking for L1 and L2, loop split and merge, fusion of passes over the same data, hoisting "
        "invariant work out of loops, data reuse and register blocking, and other methods not listed.\n"
        "4. Prefer a plan that changes the kernel's structure (threads, vectorization, blocking, fusion) "
        "over tuning a constant; the compiler optimizes too, so the profile and the source may disagree.\n"
        "5. Keep the precision of the baseline.\n";
    b.pitfalls =
        "Pitfalls to avoid:\n"
        "- Aliasing: every input and output is its own buffer, never overlapping another; mark the pointers "
        "__restrict so the compiler can vectorize.\n"
        "- Alignment: every buffer starts on a 4096-byte boundary, but a row inside it is 64-byte aligned "
        "only when the row length is a multiple of 16 floats; use unaligned loads (_mm512_loadu_ps) unless "
        "you know.\n"
        "- Tails: handle sizes that are not a multiple of the vector width or the tile size (masked "
        "loads/stores or a scalar remainder loop).\n"
        "- Reductions: without -ffast-math a sum in one accumulator stays scalar; use several vector "
        "accumulators or `#pragma omp simd reduction(+:s)`. Under OpenMP use `reduction(...)` or per-thread "
        "partials, never a shared variable updated by all threads. Results need not be bit-identical "
        "between calls, only within the tolerance: accumulate in fp32 or wider.\n"
        "- Threads: use OpenMP's thread pool (creating std::threads on every call costs tens of "
        "microseconds); do not ask for more threads than OMP_NUM_THREADS; give each thread enough work.\n"
        "- Special values: keep the reference's handling of overflow and large magnitudes (see the "
        "adversarial cases); rewrites such as exp(x)/(1+exp(x)) turn into inf/inf = NaN.\n"
        "- Write every output element on every call (outputs start as NaN), and never write the inputs.\n";
    return b;
  }();
  return kCpu;
}

}  // namespace accelopt::workflows
