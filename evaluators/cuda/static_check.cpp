#include "evaluators/cuda/static_check.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "evaluators/judge/cpp_rules.hpp"

namespace accelopt::eval::cuda {
namespace {

Status CudaRefuse(const std::string& m) { return PermissionDenied(m); }

std::string LineOf(const std::string& code, size_t pos) {
  return "line " + std::to_string(1 + std::count(code.begin(), code.begin() + static_cast<long>(pos), '\n')) + ": ";
}

// Header families refused, by the start of the name inside <...>.
struct RefusedHeader {
  const char* prefix;
  const char* why;
};
const RefusedHeader kRefusedHeaders[] = {
    {"cuda_fp16", "reduced precision (half)"},
    {"cuda_bf16", "reduced precision (bfloat16)"},
    {"cuda_fp8", "reduced precision (fp8)"},
    {"cuda_fp6", "reduced precision (fp6)"},
    {"cuda_fp4", "reduced precision (fp4)"},
    {"crt/", "CUDA internals"},
    {"cublas", "cuBLAS does the work: write the kernel"},
    {"cudnn", "cuDNN does the work: write the kernel"},
    {"cutlass", "CUTLASS does the work: write the kernel"},
    {"cute/", "CuTe (CUTLASS) does the work: write the kernel"},
    {"cufft", "a library that does the work"},
    {"cusparse", "a library that does the work"},
    {"cusolver", "a library that does the work"},
    {"curand", "a library that does the work"},
    {"cutensor", "a library that does the work"},
    {"nccl", "a library that does the work"},
    {"thrust/", "Thrust does the work: write the kernel"},
    {"cub/", "CUB does the work: write the kernel"},
    {"nvrtc", "run-time compilation"},
    {"nvml", "device management"},
    {"cuda.h", "the driver API (the runner owns the context)"},
    {"cudaProfiler", "profiler control"},
};

}  // namespace

Status CheckSource(const std::string& source) {
  const std::string no_comments_strings = judge::StripCommentsAndStrings(source);
  // Includes (the cpu rules already made them <name> without "..").
  {
    static const std::regex kInclude(R"(^\s*#\s*include\s*<([^>]*)>)");
    std::istringstream lines(source);
    std::string line;
    int lineno = 0;
    // Comments are blanked on a copy with strings kept, line by line.
    std::istringstream stripped(no_comments_strings);
    std::string sline;
    while (std::getline(lines, line)) {
      std::getline(stripped, sline);
      ++lineno;
      std::smatch m;
      // An include's <...> survives the stripping (it is not a literal).
      if (!std::regex_search(sline, m, kInclude)) continue;
      const std::string name = m[1];
      for (const auto& h : kRefusedHeaders) {
        if (name.rfind(h.prefix, 0) == 0) {
          return CudaRefuse("line " + std::to_string(lineno) + ": #include <" + name + "> is not allowed (" + h.why +
                            ")");
        }
      }
    }
  }
  const std::string& code = no_comments_strings;
  static const std::regex kIdent(R"([A-Za-z_][A-Za-z0-9_]*)");
  static const std::set<std::string> kLowTypes = {"half",
                                                  "half2",
                                                  "__half",
                                                  "__half2",
                                                  "__half_raw",
                                                  "__half2_raw",
                                                  "nv_half",
                                                  "nv_half2",
                                                  "__nv_bfloat16",
                                                  "__nv_bfloat162",
                                                  "nv_bfloat16",
                                                  "nv_bfloat162",
                                                  "__nv_bfloat16_raw",
                                                  "tf32",
                                                  "__float_to_tf32",
                                                  "__nv_fp8_e4m3",
                                                  "__nv_fp8_e5m2",
                                                  "__nv_fp8x2_e4m3",
                                                  "__nv_fp8x2_e5m2",
                                                  "__nv_fp8x4_e4m3",
                                                  "__nv_fp8x4_e5m2",
                                                  "__nv_fp8_storage_t",
                                                  "__nv_fp8_interpretation_t"};
  // Conversion and arithmetic intrinsics of the reduced-precision types.
  static const std::regex kLowIntrinsic(
      R"(^(__\w*(half|bfloat16|bf16|tf32|fp8|fp6|fp4|e4m3|e5m2|e2m1|e3m2|e2m3)\w*|)"
      R"(__h(add|sub|mul|div|fma|neg|abs|max|min|eq|ne|lt|le|gt|ge|equ|neu|ltu|leu|gtu|geu|isnan|isinf|cmadd|sqrt|rsqrt|rcp|exp|log|sin|cos|floor|ceil|trunc|rint)\w*|)"
      R"(h(sqrt|rsqrt|rcp|exp|exp2|exp10|log|log2|log10|sin|cos|floor|ceil|trunc|rint)2?|)"
      R"(__nv_(fp8|fp6|fp4|cvt)\w*|__(float|double)2(half|bfloat16)\w*|__(low|high|floats|halves)2\w*|)"
      R"(__(ll|ull|int|uint|short|ushort)2(half|bfloat16)\w*|__(half|bfloat16)(2|_as_)\w*)$)");
  static const std::set<std::string> kDeviceClock = {"clock",       "clock64",     "__clock",      "__clock64",
                                                     "__nanosleep", "globaltimer", "__globaltimer"};
  static const std::set<std::string> kAsm = {"asm", "__asm", "__asm__"};
  for (auto it = std::sregex_iterator(code.begin(), code.end(), kIdent); it != std::sregex_iterator(); ++it) {
    const std::string id = it->str();
    const size_t pos = static_cast<size_t>(it->position());
    if (kLowTypes.count(id) || std::regex_match(id, kLowIntrinsic)) {
      return CudaRefuse(LineOf(code, pos) + "reduced precision ('" + id +
                        "') is not allowed: the kernel must compute in fp32 (or more)");
    }
    if (kAsm.count(id)) {
      return CudaRefuse(LineOf(code, pos) + "inline assembly (inline PTX) is not allowed: the checks cannot read it");
    }
    if (kDeviceClock.count(id)) {
      return CudaRefuse(LineOf(code, pos) + "'" + id + "' reads a clock or sleeps; kernels may not");
    }
  }
  // wmma fragments: double only (DMMA). fragment<use, m, n, k, T[, layout]>.
  static const std::regex kFragment(R"(\bfragment\s*<([^;{}]*?)>\s*[A-Za-z_(&*])");
  static const std::regex kPrecision(R"(\bprecision\s*::)");
  if (std::smatch m; std::regex_search(code, m, kPrecision)) {
    return CudaRefuse(
        LineOf(code, static_cast<size_t>(m.position())) +
        "wmma::precision types (tf32, b1, s4, u4) are not allowed: only double fragments keep fp32 accuracy");
  }
  for (auto it = std::sregex_iterator(code.begin(), code.end(), kFragment); it != std::sregex_iterator(); ++it) {
    const std::string args = (*it)[1];
    std::vector<std::string> parts;
    std::stringstream ss(args);
    for (std::string p; std::getline(ss, p, ',');) {
      p.erase(0, p.find_first_not_of(" \t\n"));
      p.erase(p.find_last_not_of(" \t\n") + 1);
      parts.push_back(p);
    }
    if (parts.size() < 5 || parts[4] != "double") {
      return CudaRefuse(LineOf(code, static_cast<size_t>(it->position())) + "wmma fragment<" + args +
                        "> is not allowed: tensor-core fragments must be double (fp16, bf16, tf32 and integer "
                        "tensor-core math lose fp32 accuracy)");
    }
  }
  // Then the C++ rules (angle includes only, no "..", no rdtsc, no host
  // reduced-precision types): a .cu is C++ too.
  return judge::CheckSource(source);
}

namespace {

bool CudaSymbolAllowed(const std::string& s) {
  static const std::set<std::string> kExact = {
      // memory
      "malloc", "free", "calloc", "realloc", "aligned_alloc", "posix_memalign", "memalign", "memcpy", "memmove",
      "memset", "memcmp", "__memcpy_chk", "__memmove_chk", "__memset_chk",
      // C/C++ runtime
      "abort", "__assert_fail", "__errno_location", "__stack_chk_fail", "__cxa_atexit", "__cxa_finalize",
      "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__cxa_pure_virtual", "__cxa_begin_catch",
      "__cxa_end_catch", "__cxa_rethrow", "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw",
      "__cxa_call_unexpected", "__gxx_personality_v0", "_Unwind_Resume", "__gmon_start__", "_ITM_registerTMCloneTable",
      "_ITM_deregisterTMCloneTable", "_ZSt9terminatev", "__tls_get_addr",
      // the CUDA runtime: what nvcc's generated host code calls
      "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary", "__cudaRegisterFunction",
      "__cudaRegisterVar", "__cudaRegisterManagedVar", "__cudaRegisterSurface", "__cudaRegisterTexture",
      "__cudaInitModule", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration", "__cudaLaunchKernel",
      "__cudaLaunchKernel_ptsz", "__cudaGetKernel", "__cudaRegisterEntry",
      // ... and what a kernel's host function may call
      "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", "cudaMalloc", "cudaFree",
      "cudaMallocAsync", "cudaFreeAsync", "cudaMemset", "cudaMemsetAsync", "cudaMemset2D", "cudaMemset2DAsync",
      "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName", "cudaDeviceSynchronize",
      "cudaStreamSynchronize", "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
      "cudaStreamDestroy", "cudaStreamWaitEvent", "cudaStreamQuery", "cudaEventCreate", "cudaEventCreateWithFlags",
      "cudaEventRecord", "cudaEventRecordWithFlags", "cudaEventDestroy", "cudaEventSynchronize", "cudaEventQuery",
      "cudaGetDevice", "cudaGetDeviceCount", "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2",
      "cudaDeviceGetAttribute", "cudaFuncSetAttribute", "cudaFuncGetAttributes", "cudaFuncSetCacheConfig",
      "cudaFuncSetSharedMemConfig", "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
      "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "cudaOccupancyMaxPotentialClusterSize",
      "cudaOccupancyMaxActiveClusters", "cudaOccupancyAvailableDynamicSMemPerBlock", "cudaMemcpyToSymbol",
      "cudaMemcpyToSymbolAsync", "cudaGetSymbolAddress", "cudaGetSymbolSize", "cudaDriverGetVersion",
      "cudaRuntimeGetVersion"};
  if (kExact.count(s)) return true;
  static const std::regex kPatterns(
      // libm (host side)
      R"(^(sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|exp|exp2|expm1|log|log2|log10|log1p|pow|sqrt|cbrt|)"
      R"(hypot|fabs|floor|ceil|round|lround|trunc|fmod|fmin|fmax|fma|erf|erfc|ldexp|frexp|modf|copysign|rint)[fl]?$)"
      // operator new/delete, typeinfo, vtables, std exceptions
      R"(|^_Z(nw|na|dl|da)\w*$|^_ZT[IVS]\w+$|^_ZSt\d+__throw_\w+$)"
      R"(|^_ZNSt\d+(bad_alloc|bad_array_new_length|exception)\w*$)"
      // libgcc integer helpers
      R"(|^__(div|mod|udiv|umod|mul|popcount|clz|ctz|ffs|parity|bswap|ashl|ashr|lshr)[a-z]*[0-9]$)");
  return std::regex_search(s, kPatterns);
}

std::string CudaSymbolCategory(const std::string& s) {
  static const std::regex kCopy(R"(^cuda(Memcpy\w*|MemcpyFromSymbol\w*|MemPrefetch\w*)$)");
  if (s.rfind("cudaMemcpyFromSymbol", 0) == 0 || (std::regex_match(s, kCopy) && s.rfind("cudaMemcpyToSymbol", 0) != 0))
    return "host<->device copies: the kernel computes on the device, from the device pointers it is given";
  if (s == "cudaEventElapsedTime" || s == "cudaEventElapsedTime_v2")
    return "timing with events: kernels may not read clocks";
  static const std::regex kHostMem(
      R"(^cuda(MallocHost|HostAlloc|HostRegister|HostUnregister|HostGetDevicePointer|MallocManaged|FreeHost|MemAdvise\w*)$)");
  if (std::regex_match(s, kHostMem)) return "host-visible memory: inputs and outputs live in device memory";
  static const std::regex kCtx(
      R"(^cuda(SetDevice|DeviceReset|DeviceSetLimit|DeviceSetCacheConfig|SetDeviceFlags|DeviceSetSharedMemConfig|CtxResetPersistingL2Cache|DeviceSetMemPool|DeviceGraphMemTrim|ProfilerStart|ProfilerStop|ThreadExit|ThreadSynchronize)$)");
  if (std::regex_match(s, kCtx)) return "context and device control: the runner owns the CUDA context";
  static const std::regex kCb(R"(^cuda(LaunchHostFunc|StreamAddCallback)$)");
  if (std::regex_match(s, kCb)) return "host callbacks: host code must not run behind the judge's back";
  if (s.rfind("cudaGraph", 0) == 0 || s.rfind("cudaStreamBeginCapture", 0) == 0 ||
      s.rfind("cudaStreamEndCapture", 0) == 0)
    return "CUDA graphs are not supported by the runner yet";
  if (s.rfind("cudaIpc", 0) == 0) return "inter-process sharing";
  if (s.rfind("cublas", 0) == 0 || s.rfind("cudnn", 0) == 0 || s.rfind("cutlass", 0) == 0 || s.rfind("cufft", 0) == 0 ||
      s.rfind("cusparse", 0) == 0 || s.rfind("cusolver", 0) == 0 || s.rfind("curand", 0) == 0)
    return "a library that does the work: write the kernel";
  if (s.rfind("cu", 0) == 0 && s.size() > 2 && std::isupper(static_cast<unsigned char>(s[2])))
    return "the driver API: the runner owns the context";
  static const std::regex kThreads(R"(^(pthread_\w+|_ZNSt6thread\w+|GOMP_\w+|omp_\w+|sched_yield)$)");
  if (std::regex_match(s, kThreads)) return "host threads: the host function launches work, it does not compute";
  if (s.rfind("cuda", 0) == 0) return "a CUDA runtime call not on the allow-list (docs/evaluation.md, cuda backend)";
  // The cpu backend's categories for the rest (files, network, processes, clocks, output).
  Status st = judge::CheckSymbols({s});
  const std::string m = st.message();
  const size_t open = m.find('('), close = m.rfind(')');
  if (!st.ok() && open != std::string::npos && close > open) {
    std::string cat = m.substr(open + 1, close - open - 1);
    if (cat.rfind("not on the allow-list", 0) != 0) return cat;
  }
  return "not on the allow-list: a kernel's host function may launch kernels and call the CUDA runtime's "
         "allocation, stream, event and attribute functions only";
}

}  // namespace

Status CheckSymbols(const std::vector<std::string>& undefined) {
  std::vector<std::string> bad;
  for (const auto& s : undefined) {
    std::string base = s.substr(0, s.find('@'));
    if (!CudaSymbolAllowed(base)) bad.push_back(base);
  }
  if (bad.empty()) return Status::Ok();
  std::string msg = "symbol '" + bad[0] + "' is not allowed (" + CudaSymbolCategory(bad[0]) + ")";
  if (bad.size() > 1) {
    msg += "; also:";
    for (size_t i = 1; i < bad.size() && i < 6; ++i) msg += " " + bad[i];
    if (bad.size() > 6) msg += " ...";
  }
  return CudaRefuse(msg);
}

}  // namespace accelopt::eval::cuda
