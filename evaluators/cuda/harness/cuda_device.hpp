// DeviceOps on the CUDA runtime (device.hpp): the one file of the runner
// that calls CUDA. Included once, by runner_main.cpp.
//
// NOT RUN YET: compiled against the CUDA 13 headers and cudart at build time
// (where nvcc is found); no GPU was available when it was written
// (docs/evaluation.md, "cuda backend": verified here vs only on paper).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "evaluators/cuda/harness/device.hpp"

namespace accelopt_cuda {

class CudaDevice : public DeviceOps {
 public:
  // The device is the one CUDA_VISIBLE_DEVICES leaves (ordinal 0).
  bool Init() {
    if (!Ok(cudaSetDevice(0), "cudaSetDevice")) return false;
    if (!Ok(cudaFree(nullptr), "creating the context")) return false;
    int l2 = 0;
    if (!Ok(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "L2 size")) return false;
    flush_bytes_ = static_cast<size_t>(l2 > 0 ? l2 : (64 << 20)) * 2;  // twice the L2
    if (!Ok(cudaMalloc(&flush_, flush_bytes_), "the L2 flush buffer")) return false;
    return Ok(cudaEventCreate(&start_), "cudaEventCreate") && Ok(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    return Ok(cudaMalloc(&p, bytes), "cudaMalloc") ? p : nullptr;
  }
  bool Upload(void* d, const void* h, size_t n) override {
    return Ok(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
  }
  bool Download(void* h, const void* d, size_t n) override {
    // On the legacy default stream: it waits for the default stream and for
    // blocking streams, not for non-blocking ones (device.hpp, Stop).
    return Ok(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
  }
  bool FillNaN(void* d, size_t n) override { return Ok(cudaMemset(d, 0xff, n), "cudaMemset"); }
  bool FlushL2() override {
    return Ok(cudaMemsetAsync(flush_, 0, flush_bytes_, nullptr), "flushing the L2") &&
           Ok(cudaStreamSynchronize(nullptr), "flushing the L2");
  }
  bool Start() override { return Ok(cudaEventRecord(start_, nullptr), "cudaEventRecord"); }
  bool Stop(double* ns) override {
    float ms = 0;
    if (!Ok(cudaEventRecord(stop_, nullptr), "cudaEventRecord") || !Ok(cudaEventSynchronize(stop_), "the stop event") ||
        !Ok(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime"))
      return false;
    *ns = static_cast<double>(ms) * 1e6;
    return Ok(cudaGetLastError(), "a launch");
  }
  bool Synchronize() override {
    return Ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize") && Ok(cudaGetLastError(), "a launch");
  }
  const std::string& error() const override { return error_; }

 private:
  bool Ok(cudaError_t e, const char* what) {
    if (!error_.empty()) return false;  // poisoned: never reused
    if (e == cudaSuccess) return true;
    error_ = std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    return false;
  }
  std::string error_;
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
  cudaEvent_t start_{}, stop_{};
};

}  // namespace accelopt_cuda
