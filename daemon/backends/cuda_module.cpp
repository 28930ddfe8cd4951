// The cuda backend's module: its config section (cuda_section.cpp: the
// GPUs, one slot each) and its start, which refuses a machine without nvcc
// or with a GPU that fails its calibration.
#include "daemon/backends/modules.hpp"

#include <algorithm>

#include "base/log.hpp"
#include "daemon/backends/sections.hpp"
#include "daemon/notify.hpp"
#include "evaluators/gpu/calibration.hpp"
#include "evaluators/cuda/cuda_backend.hpp"
#include "evaluators/cuda/toolchain.hpp"
#include "evaluators/gpu/nvcc.hpp"

namespace accelopt::daemon::backends {
namespace {

Status StartCuda(Env* env, const std::string& name, const BackendConfig& bc, StartedBackend* out) {
  // Configured but unable to evaluate: refuse to start rather than accept
  // cuda submissions that can never run. Usable means nvcc is found and
  // every listed GPU passes the calibration (compiled with nvcc and run
  // on it, CUDA_VISIBLE_DEVICES=<id>): no GPU, no driver or a broken
  // toolkit shows there, with its reason (docs/evaluation.md, "cuda backend").
  auto nvcc = eval::gpu::FindNvcc(env);
  if (!nvcc.ok()) {
    return FailedPrecondition("evaluators.cuda: " + nvcc.status().message() +
                              "; remove evaluators.cuda from the configuration");
  }
  ACCELOPT_RETURN_IF_ERROR(NeedDir(env, bc.cache_dir, "evaluators." + name + ".cache_dir"));
  std::optional<eval::gpu::GpuCalibration> gpu;
  for (int d : bc.devices) {
    NotifyStatus("calibrating GPU " + std::to_string(d));
    auto c = eval::gpu::CalibrateGpu(env, *nvcc, bc.cache_dir + "/calibrate-" + std::to_string(d), std::to_string(d));
    if (!c.ok()) {
      return FailedPrecondition("evaluators.cuda: GPU " + std::to_string(d) +
                                " is not usable: " + c.status().message() +
                                "; the cuda backend needs a working GPU for every entry of evaluators.cuda.devices");
    }
    const std::string model = c->gpu.value("name", std::string("?"));
    if (gpu && model != gpu->gpu.value("name", std::string("?"))) {
      return FailedPrecondition("evaluators.cuda: GPU " + std::to_string(d) + " is a " + model + ", GPU " +
                                std::to_string(bc.devices.front()) + " a " + gpu->gpu.value("name", std::string("?")) +
                                ": one cuda backend evaluates on one GPU model (list the same model's devices)");
    }
    // The roofline must be an upper bound on every slot: the highest peaks.
    if (!gpu) gpu = *c;
    gpu->peak_gflops = std::max(gpu->peak_gflops, c->peak_gflops);
    gpu->bandwidth_gbps = std::max(gpu->bandwidth_gbps, c->bandwidth_gbps);
  }
  eval::cuda::CudaBackendOptions co;
  co.env = env;
  co.root = "/";
  co.cache_dir = bc.cache_dir;
  co.nvcc = *nvcc;
  co.devices = bc.devices;
  co.calibration = gpu;
  out->facts = [facts = json{{"cuda", gpu->ToJson()}}] { return facts; };  // workflows/prompts_cuda.cpp
  co.arch = eval::cuda::ArchFlag(std::max(5, gpu->gpu.value("cc_major", 9)), gpu->gpu.value("cc_minor", 0));
  LogInfo("evaluator backend 'cuda': " + std::to_string(bc.devices.size()) + " GPU slot(s), " +
          gpu->gpu.value("name", std::string("?")) + ", " + co.arch + ", nvcc " + *nvcc);
  out->slots.push_back({std::make_shared<eval::cuda::CudaBackend>(co), bc.slots, {}});
  return Status::Ok();
}

}  // namespace

BackendModule CudaModule() {
  BackendModule m = CudaSection();
  m.start = StartCuda;
  return m;
}

}  // namespace accelopt::daemon::backends
