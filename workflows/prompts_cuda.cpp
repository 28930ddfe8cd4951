#include "workflows/prompts_cuda.hpp"

#include <cstdio>

#include "workflows/prompts_cpu.hpp"

namespace accelopt::workflows {
namespace {

std::string CudaNum(double v, int significant = 6) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", significant, v);
  return b;
}

bool Has(const json& o, const char* key) { return o.is_object() && o.contains(key) && o[key].is_number(); }
double Get(const json& o, const char* key) { return Has(o, key) ? o[key].get<double>() : 0; }
std::string Text(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : "";
}

std::string KiB(double bytes) { return CudaNum(bytes / 1024, 4) + " KiB"; }
std::string MiB(double bytes) { return CudaNum(bytes / (1024 * 1024), 4) + " MiB"; }

}  // namespace

std::string CudaCompileCommand(const std::string& arch) {
  return "nvcc -std=c++17 -O3 -arch=" + arch + " --cudart shared -Xcompiler -fPIC -shared";
}

std::string CudaHardwareProse(const json& facts) {
  // A campaign's facts carry the GPU calibration under "cuda" (beside the
  // cpu calibration's keys, which are the CPU's: never read here);
  // accelopt-eval passes the calibration itself.
  const json& c = facts.is_object() && facts.contains("cuda") && facts["cuda"].is_object() ? facts["cuda"] : facts;
  if (!c.is_object() || !c.contains("gpu") || !c["gpu"].is_object()) return "(none recorded)\n";
  const json& gpu = c["gpu"];
  std::string out;
  auto line = [&](const std::string& what, bool known, const std::string& value) {
    out += "- " + what + ": " + (known ? value : std::string("(not recorded)")) + "\n";
  };
  const std::string name = Text(gpu, "name");
  line("GPU", !name.empty(),
       name + (Has(gpu, "cc_major")
                   ? " (compute capability " + CudaNum(Get(gpu, "cc_major")) + "." + CudaNum(Get(gpu, "cc_minor")) + ")"
                   : std::string()));
  line("streaming multiprocessors (SMs)", Has(gpu, "sm_count"), CudaNum(Get(gpu, "sm_count"), 6));
  line("warp size", Has(gpu, "warp_size"), CudaNum(Get(gpu, "warp_size")) + " threads");
  line("max threads per block / per SM", Has(gpu, "max_threads_per_block"),
       CudaNum(Get(gpu, "max_threads_per_block"), 6) + " / " + CudaNum(Get(gpu, "max_threads_per_sm"), 6));
  line("registers per SM / per block", Has(gpu, "registers_per_sm"),
       CudaNum(Get(gpu, "registers_per_sm"), 6) + " / " + CudaNum(Get(gpu, "registers_per_block"), 6) +
           " 32-bit registers (at most 255 per thread)");
  line("shared memory per SM", Has(gpu, "shared_memory_per_sm_bytes"), KiB(Get(gpu, "shared_memory_per_sm_bytes")));
  line("shared memory per block", Has(gpu, "shared_memory_per_block_bytes"),
       KiB(Get(gpu, "shared_memory_per_block_bytes")) + " static; up to " +
           KiB(Get(gpu, "shared_memory_per_block_optin_bytes")) +
           " dynamic with cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)");
  line("L2 cache", Has(gpu, "l2_bytes"), MiB(Get(gpu, "l2_bytes")) + " (flushed between timed calls)");
  line("device memory", Has(gpu, "memory_bytes"),
       CudaNum(Get(gpu, "memory_bytes") / (1024.0 * 1024 * 1024), 4) + " GiB");
  line("SM clock / memory clock", Has(gpu, "sm_clock_mhz"),
       CudaNum(Get(gpu, "sm_clock_mhz")) + " MHz / " + CudaNum(Get(gpu, "memory_clock_mhz")) + " MHz");
  line("driver / runtime", !Text(gpu, "driver").empty(), Text(gpu, "driver") + " / " + Text(gpu, "runtime"));
  line("calibrated fp32 FMA peak", Has(c, "peak_gflops"),
       CudaNum(Get(c, "peak_gflops")) + " GFLOP/s" +
           (Has(c, "datasheet_peak_gflops") ? " (data sheet: " + CudaNum(Get(c, "datasheet_peak_gflops")) + ")"
                                            : std::string()));
  line("calibrated device-memory bandwidth", Has(c, "bandwidth_gbps"),
       CudaNum(Get(c, "bandwidth_gbps")) + " GB/s" +
           (Has(c, "datasheet_bandwidth_gbps") ? " (data sheet: " + CudaNum(Get(c, "datasheet_bandwidth_gbps")) + ")"
                                               : std::string()));
  return out;
}

const BackendPrompts& CudaPrompts() {
  static const BackendPrompts kCuda = [] {
    BackendPrompts b;
    b.name = "cuda";
    b.intro =
        "The kernel is one CUDA C++ file (.cu) that defines the problem's extern \"C\" host function. It is "
        "compiled with `" +
        CudaCompileCommand() +
        "` and loaded by a separate runner process that owns the "
        "GPU. Every pointer argument is a DEVICE pointer (inputs const float*, outputs float*); scalars are "
        "float and dims int64_t, passed by value. The host function launches its kernels on the default "
        "stream and may return before they finish: the runner times each call with CUDA events on the "
        "default stream, waits for the device, and flushes the L2 cache between timed calls.";
    b.rules =
        "Rules (checked before the kernel runs; a violation is rejected with the reason):\n"
        "- fp32 or wider only: no half, __half, bfloat16, fp8/fp6/fp4 types, headers or intrinsics "
        "(__float2half, __hadd, ...); no TF32 (wmma::precision::tf32, __float_to_tf32). Tensor cores only "
        "through nvcuda::wmma with double fragments (DMMA); every other tensor-core path loses fp32 accuracy.\n"
        "- Write the kernel yourself: no cuBLAS, cuBLASLt, cuDNN, CUTLASS, CuTe, Thrust, CUB, cuFFT, cuSPARSE, "
        "cuSOLVER, cuRAND, the driver API (cuda.h), NVRTC. Includes are <name> only.\n"
        "- No inline assembly or inline PTX (asm, __asm__), no device clocks or sleeps (clock, clock64, "
        "__nanosleep, %globaltimer).\n"
        "- The host function may call: kernel launches, cudaMalloc/cudaFree (and the Async forms), "
        "cudaMemset(Async), streams and events for ordering (cudaStreamCreate*, cudaStreamWaitEvent, "
        "cudaEventRecord, cudaStreamSynchronize, cudaDeviceSynchronize), error queries, device and function "
        "attributes (cudaDeviceGetAttribute, cudaFuncSetAttribute, occupancy), cudaMemcpyToSymbol for "
        "__constant__ data. Not: cudaMemcpy (no host<->device copies: compute on the device), "
        "cudaEventElapsedTime, host-visible memory (cudaMallocHost, cudaMallocManaged, ...), cudaSetDevice or "
        "other context control, host callbacks, graphs, host threads, and no host file, network, process, "
        "clock or output calls.\n"
        "- Keep the function's name and signature exactly as given. Do not cache results or inputs between "
        "calls, and do not special-case inputs.\n";
    b.compile = CudaCompileCommand();
    b.correctness = [](const json& p) {
      return CpuCorrectness(p) +
             "- Outputs are device memory NaN-filled before every call and copied out right after the "
             "call's stop event: work still running then (on a stream of your own that you did not "
             "synchronize) is missing from them and fails.\n";
    };
    b.hardware = CudaHardwareProse;
    b.fields = {
        {"flops", "floating-point operations of one call (problem.json), FLOP"},
        {"bytes", "bytes one call must move at least (problem.json), bytes"},
        {"arithmetic_intensity", "flops / bytes, FLOP/byte"},
        {"achieved_gflops", "flops / median latency, GFLOP/s"},
        {"achieved_gbps", "bytes / median latency, GB/s"},
        {"compute_utilization_pct", "achieved_gflops / calibrated fp32 FMA peak, %"},
        {"memory_utilization_pct", "achieved_gbps / calibrated device-memory bandwidth, %"},
        {"roofline_peak_gflops", "the calibrated fp32 FMA peak of this GPU, GFLOP/s"},
        {"roofline_bandwidth_gbps", "the calibrated device-memory bandwidth of this GPU, GB/s"},
    };
    b.planning =
        "How to plan: start from the profile — is the kernel far from the compute roofline or the memory "
        "roofline? Find the costliest inefficiency: uncoalesced or repeated global loads, no data reuse "
        "(tile through shared memory and registers), low occupancy (registers or shared memory per block), "
        "too few blocks for the SMs, serial loops that could be parallel reductions (warp shuffles, then "
        "shared memory), extra kernel launches or round trips through global memory that fusion removes. "
        "Prefer a plan that changes the kernel's structure (tiling, fusion, a different parallel "
        "decomposition) over tuning a constant, and keep fp32.\n";
    b.pitfalls =
        "Executor pitfalls:\n"
        "- Coalescing: consecutive threads of a warp should touch consecutive 4-byte words; stride across "
        "rows with blockIdx, not threadIdx.\n"
        "- Shared-memory bank conflicts: 32 banks of 4 bytes; pad 2-D tiles by one column ([T][T + 1]) when "
        "a warp reads a column.\n"
        "- Occupancy: registers per thread x threads per block and shared memory per block limit the blocks "
        "per SM; __launch_bounds__ helps the compiler; more than 48 KiB of shared memory per block needs "
        "dynamic shared memory and cudaFuncSetAttribute.\n"
        "- Synchronization: __syncthreads() between writing a shared tile and reading it, and again before "
        "overwriting it; never inside a branch that not every thread of the block takes.\n"
        "- Tails: every dimension need not be a multiple of the tile; guard loads (fill with 0) and stores.\n"
        "- Streams: anything launched on a stream of your own must be finished before the function returns "
        "(cudaStreamSynchronize), or the outputs are incomplete when they are copied out.\n"
        "- Scratch memory from cudaMalloc is uninitialized and may hold an earlier call's data: never rely "
        "on it; cudaFree waits for the device.\n"
        "- float4 loads need 16-byte-aligned addresses: device allocations are, a row offset only when the "
        "row length is a multiple of 4.\n"
        "- Reductions in a different order than the reference are fine within the tolerance; fused "
        "multiply-add (fmaf) is fp32. A variable named half is refused by the precision check: name it "
        "otherwise.\n"
        "- Write every output element on every call (they are NaN before the call).\n";
    return b;
  }();
  return kCuda;
}

}  // namespace accelopt::workflows
