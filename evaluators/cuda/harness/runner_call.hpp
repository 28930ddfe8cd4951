// One call of the candidate in the cuda runner, in the order that makes
// each documented guarantee hold (docs/evaluation.md, "cuda backend"):
//   1. upload every input from the judge's shared region (fresh every call:
//      a kernel that wrote into its inputs on the device cannot profit);
//   2. NaN-fill every output on the device (nothing from an earlier call
//      survives in them);
//   3. flush the L2 (every timed call starts cold);
//   4. start event; the candidate's host function; stop event, waited for;
//   5. download every output into this call's slot of the shared region
//      right after the stop event — work still running on a stream of the
//      candidate's own is missing from it (NaN) and fails the check;
//   6. synchronize the device (catches faults of that late work too), then
//      download every input back over the judge's copy in the shared
//      region, so the judge's "inputs are read-only" check sees any device
//      write.
// Any device error: false, with the message; the runner then exits.
//
// Included by runner_main.cpp and by the test of this sequence
// (tests/evaluators/cuda_runner_test.cpp, with the fake device).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "evaluators/cuda/harness/device.hpp"

namespace accelopt_cuda {

struct Buffer {
  char kind = 0;  // 'i' input, 'o' output
  size_t bytes = 0;
  void* device = nullptr;  // the runner's device copy
  char* host = nullptr;    // slot 0 of the buffer in the shared region
  size_t slot_stride = 0;  // bytes from one slot to the next (call i of a batch uses slot i)
};

// `call` calls the candidate with the device pointers (the generated glue).
template <typename Call>
bool CallOnce(DeviceOps& dev, std::vector<Buffer>& buffers, uint32_t slot, const Call& call, double* device_ns,
              std::string* why) {
  auto fail = [&](const char* stage) {
    *why = std::string(stage) + ": " + dev.error();
    return false;
  };
  for (auto& b : buffers)
    if (b.kind == 'i' && !dev.Upload(b.device, b.host + slot * b.slot_stride, b.bytes))
      return fail("uploading the inputs");
  for (auto& b : buffers)
    if (b.kind == 'o' && !dev.FillNaN(b.device, b.bytes)) return fail("NaN-filling the outputs");
  if (!dev.FlushL2()) return fail("flushing the L2");
  if (!dev.Start()) return fail("recording the start event");
  call();
  if (!dev.Stop(device_ns)) return fail("the kernel (at its stop event)");
  for (auto& b : buffers)
    if (b.kind == 'o' && !dev.Download(b.host + slot * b.slot_stride, b.device, b.bytes))
      return fail("copying the outputs out");
  if (!dev.Synchronize()) return fail("the kernel (after its stop event)");
  for (auto& b : buffers)
    if (b.kind == 'i' && !dev.Download(b.host + slot * b.slot_stride, b.device, b.bytes))
      return fail("copying the inputs back");
  return true;
}

}  // namespace accelopt_cuda
