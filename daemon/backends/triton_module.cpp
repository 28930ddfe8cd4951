// The triton backend's module: its config section (triton_section.cpp:
// the interpreter with torch and triton, the GPUs, one slot each) and its
// start, which probes both on every GPU.
#include "daemon/backends/modules.hpp"

#include <chrono>

#include "base/log.hpp"
#include "daemon/backends/sections.hpp"
#include "daemon/notify.hpp"
#include "evaluators/gpu/calibration.hpp"
#include "evaluators/gpu/nvcc.hpp"
#include "evaluators/triton/triton_backend.hpp"

namespace accelopt::daemon::backends {
namespace {

Status StartTriton(Env* env, const std::string& name, const BackendConfig& bc, StartedBackend* out) {
  // As for cuda: configured but unable to evaluate refuses the start.
  // Usable means the interpreter imports torch and triton and torch
  // sees a CUDA device (each listed GPU is probed with its own
  // CUDA_VISIBLE_DEVICES); the roofline needs the cuda calibration
  // (nvcc), without which results carry none, and the log says so.
  for (int d : bc.devices) {
    ProcessSpec probe;
    probe.argv = {bc.python, "-I", "-c", "import torch, triton, sys; sys.exit(0 if torch.cuda.is_available() else 3)"};
    probe.clear_env = true;
    probe.env_set["PATH"] = "/usr/bin:/bin";
    probe.env_set["CUDA_VISIBLE_DEVICES"] = std::to_string(d);
    probe.timeout = std::chrono::seconds(120);
    probe.max_output_bytes = 1 << 16;
    NotifyStatus("probing torch and triton on GPU " + std::to_string(d));
    auto r = env->RunProcess(probe);
    if (!r.ok() || !r->Succeeded()) {
      std::string why = !r.ok()             ? r.status().message()
                        : r->exit_code == 3 ? "torch sees no CUDA device"
                                            : r->Describe() + ": " + r->stderr_data.substr(0, 400);
      return FailedPrecondition("evaluators.triton: " + bc.python + " cannot run the triton runner on GPU " +
                                std::to_string(d) + ": " + why +
                                "; install torch and triton for it, or remove evaluators.triton");
    }
  }
  eval::triton::TritonBackendOptions to;
  to.env = env;
  to.root = "/";
  to.cache_dir = bc.cache_dir;
  to.python = bc.python;
  to.devices = bc.devices;
  ACCELOPT_RETURN_IF_ERROR(NeedDir(env, bc.cache_dir, "evaluators." + name + ".cache_dir"));
  if (auto nvcc = eval::gpu::FindNvcc(env); nvcc.ok()) {
    auto c = eval::gpu::CalibrateGpu(env, *nvcc, bc.cache_dir + "/calibrate", std::to_string(bc.devices.front()));
    if (c.ok()) {
      to.calibration = *c;
      // The prompts read the GPU under "cuda" (workflows/prompts_triton.cpp);
      // with the cuda backend configured too, its calibration comes first.
      out->facts = [facts = json{{"cuda", c->ToJson()}}] { return facts; };
    } else {
      LogWarning("evaluators.triton: no GPU calibration (results carry no roofline): " + c.status().message());
    }
  } else {
    LogWarning("evaluators.triton: no nvcc for the GPU calibration (results carry no roofline): " +
               nvcc.status().message());
  }
  LogInfo("evaluator backend 'triton': " + std::to_string(bc.devices.size()) + " GPU slot(s), " + bc.python);
  out->slots.push_back({std::make_shared<eval::triton::TritonBackend>(to), bc.slots, {}});
  return Status::Ok();
}

}  // namespace

BackendModule TritonModule() {
  BackendModule m = TritonSection();
  m.start = StartTriton;
  return m;
}

}  // namespace accelopt::daemon::backends
