// The CUDA calls of the cuda runner, behind one small interface, so that the
// runner's per-call sequence (runner_call.hpp) can be tested without a GPU
// (tests/fakes/cuda/fake_device.hpp, host memory and no timing of its own:
// it can never stand in for a measurement). The real one is
// cuda_device.hpp (the CUDA runtime).
//
// Contract: every method returns false on a device error and leaves the
// message in error(); after the first error the device is poisoned (a CUDA
// context that hit a kernel fault stays unusable), every later call fails,
// and the runner exits: a runner that hit a CUDA error is never reused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace accelopt_cuda {

class DeviceOps {
 public:
  virtual ~DeviceOps() = default;
  // Device memory of `bytes` (aligned to 256 bytes), or nullptr.
  virtual void* Alloc(size_t bytes) = 0;
  // Host -> device and device -> host copies, complete when they return
  // (host memory is the judge's shared region: pageable).
  virtual bool Upload(void* device, const void* host, size_t bytes) = 0;
  virtual bool Download(void* host, const void* device, size_t bytes) = 0;
  // Every 4-byte word of [device, device + bytes) set to 0xffffffff, a NaN.
  virtual bool FillNaN(void* device, size_t bytes) = 0;
  // Evicts the L2: writes a buffer larger than the L2 (as KernelBench does).
  virtual bool FlushL2() = 0;
  // Records the start event on the default stream.
  virtual bool Start() = 0;
  // Records the stop event on the default stream, waits for it, and returns
  // start -> stop in nanoseconds (*ns). The stop event does not wait for
  // non-blocking streams the candidate created: their work, if unfinished,
  // is missing from the outputs copied next.
  virtual bool Stop(double* ns) = 0;
  // cudaDeviceSynchronize, then the sticky error state.
  virtual bool Synchronize() = 0;
  virtual const std::string& error() const = 0;
};

}  // namespace accelopt_cuda
