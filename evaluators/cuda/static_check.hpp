// Static checks on an untrusted cuda kernel (one .cu file), before it runs.
// docs/evaluation.md ("cuda backend") explains each rule.
//
// CheckSource (on the text, comments and string literals removed):
//   - reduced precision: no half / bfloat16 / fp8 / fp6 / fp4 types, their
//     conversion and arithmetic intrinsics (__float2half, __hadd, ...), or
//     their headers (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, ...);
//   - tensor cores: nvcuda::wmma only with double fragments (DMMA keeps more
//     than fp32 accuracy on fp32 data); any other fragment type (half, bf16,
//     tf32 via wmma::precision::tf32, integer) and __float_to_tf32 are
//     refused;
//   - no library that does the work: includes of cuBLAS(Lt), cuDNN, CUTLASS
//     and CuTe, cuFFT, cuSPARSE, cuSOLVER, cuRAND, cuTENSOR, NCCL, Thrust,
//     CUB, NVRTC, the driver API (cuda.h); only <name> includes, no "..";
//   - no inline assembly (asm / __asm__, so no inline PTX: mma.sync,
//     %globaltimer and %clock would bypass every other rule);
//   - no device clocks or sleeps (clock, clock64, __nanosleep, globaltimer).
// CheckSymbols (the compiled object's undefined dynamic symbols, read with
// judge::UndefinedSymbols, judge/object_check.hpp; the object links the CUDA runtime as a shared
// library, so every runtime call shows up): libm math, memory and mem*
// functions, C++ runtime support, and an allow-list of CUDA runtime calls
// (launching, device memory allocation, memset, streams and events without
// timing, errors, device and function attributes, occupancy, copies to
// __constant__ symbols). Refused with the reason: host<->device copies
// (cudaMemcpy*: the kernel must compute on the device, from the device
// pointers it is given), event timing (cudaEventElapsedTime), host-visible
// memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister,
// cudaMallocManaged), context and device control (cudaSetDevice,
// cudaDeviceReset, cudaDeviceSetLimit, ...: the runner owns the context),
// host callbacks, graphs, IPC, host threads (pthread_create, std::thread),
// and every host file, process, network, clock, output or dynamic-loading
// call (the cpu backend's categories).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "base/status.hpp"

namespace accelopt::eval::cuda {

// Ok, or kPermissionDenied with a one-line reason ("line 3: ...").
Status CheckSource(const std::string& source);

// Ok, or kPermissionDenied naming the first refused symbol(s) and why.
Status CheckSymbols(const std::vector<std::string>& undefined);

}  // namespace accelopt::eval::cuda
