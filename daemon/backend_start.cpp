#include "daemon/backend_start.hpp"

#include <algorithm>
#include <chrono>

#include "base/log.hpp"
#include "daemon/notify.hpp"
#include "evaluators/cuda/calibration.hpp"
#include "evaluators/cuda/cuda_backend.hpp"
#include "evaluators/cuda/toolchain.hpp"
#include "evaluators/nki/neuron_ls.hpp"
#include "evaluators/nki/nki_backend.hpp"
#include "evaluators/nki/roofline.hpp"
#include "evaluators/nki/sdk.hpp"
#include "evaluators/nki/venv.hpp"
#include "evaluators/slurm/slurm_backend.hpp"
#include "evaluators/triton/triton_backend.hpp"

namespace accelopt::daemon {
namespace {

// A folder a backend needs, made if missing; the error names the config field.
Status NeedDir(Env* env, const std::string& dir, const std::string& field) {
  Status st = env->CreateDirs(dir);
  if (st.ok()) return st;
  return FailedPrecondition(field + ": cannot create " + dir + ": " + st.message());
}

Status StartCuda(Env* env, const std::string& name, const BackendConfig& bc, StartedBackends* out) {
  // Configured but unable to evaluate: refuse to start rather than accept
  // cuda submissions that can never run. Usable means nvcc is found and
  // every listed GPU passes the calibration (compiled with nvcc and run
  // on it, CUDA_VISIBLE_DEVICES=<id>): no GPU, no driver or a broken
  // toolkit shows there, with its reason (docs/evaluation.md, "cuda backend").
  auto nvcc = eval::cuda::FindNvcc(env);
  if (!nvcc.ok()) {
    return FailedPrecondition("evaluators.cuda: " + nvcc.status().message() + "; remove evaluators.cuda from the configuration");
  }
  ACCELOPT_RETURN_IF_ERROR(NeedDir(env, bc.cache_dir, "evaluators." + name + ".cache_dir"));
  std::optional<eval::cuda::GpuCalibration> gpu;
  for (int d : bc.devices) {
    NotifyStatus("calibrating GPU " + std::to_string(d));
    auto c = eval::cuda::CalibrateGpu(env, *nvcc, bc.cache_dir + "/calibrate-" + std::to_string(d), std::to_string(d));
    if (!c.ok()) {
      return FailedPrecondition("evaluators.cuda: GPU " + std::to_string(d) + " is not usable: " + c.status().message() +
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
  out->cuda_facts = gpu->ToJson();
  co.arch = eval::cuda::ArchFlag(std::max(5, gpu->gpu.value("cc_major", 9)), gpu->gpu.value("cc_minor", 0));
  LogInfo("evaluator backend 'cuda': " + std::to_string(bc.devices.size()) + " GPU slot(s), " +
          gpu->gpu.value("name", std::string("?")) + ", " + co.arch + ", nvcc " + *nvcc);
  out->slots.push_back({std::make_shared<eval::cuda::CudaBackend>(co), bc.slots, {}});
  return Status::Ok();
}

Status StartTriton(Env* env, const std::string& name, const BackendConfig& bc, StartedBackends* out) {
  // As for cuda: configured but unable to evaluate refuses the start.
  // Usable means the interpreter imports torch and triton and torch
  // sees a CUDA device (each listed GPU is probed with its own
  // CUDA_VISIBLE_DEVICES); the roofline needs the cuda calibration
  // (nvcc), without which results carry none, and the log says so.
  for (int d : bc.devices) {
    ProcessSpec probe;
    probe.argv = {bc.python, "-I", "-c",
                  "import torch, triton, sys; sys.exit(0 if torch.cuda.is_available() else 3)"};
    probe.clear_env = true;
    probe.env_set["PATH"] = "/usr/bin:/bin";
    probe.env_set["CUDA_VISIBLE_DEVICES"] = std::to_string(d);
    probe.timeout = std::chrono::seconds(120);
    probe.max_output_bytes = 1 << 16;
    NotifyStatus("probing torch and triton on GPU " + std::to_string(d));
    auto r = env->RunProcess(probe);
    if (!r.ok() || !r->Succeeded()) {
      std::string why = !r.ok() ? r.status().message()
                        : r->exit_code == 3 ? "torch sees no CUDA device"
                                            : r->Describe() + ": " + r->stderr_data.substr(0, 400);
      return FailedPrecondition("evaluators.triton: " + bc.python + " cannot run the triton runner on GPU " + std::to_string(d) +
               ": " + why + "; install torch and triton for it, or remove evaluators.triton");
    }
  }
  eval::triton::TritonBackendOptions to;
  to.env = env;
  to.root = "/";
  to.cache_dir = bc.cache_dir;
  to.python = bc.python;
  to.devices = bc.devices;
  ACCELOPT_RETURN_IF_ERROR(NeedDir(env, bc.cache_dir, "evaluators." + name + ".cache_dir"));
  if (auto nvcc = eval::cuda::FindNvcc(env); nvcc.ok()) {
    auto c = eval::cuda::CalibrateGpu(env, *nvcc, bc.cache_dir + "/calibrate", std::to_string(bc.devices.front()));
    if (c.ok()) {
      to.calibration = *c;
      if (out->cuda_facts.is_null()) out->cuda_facts = c->ToJson();
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

Status StartNki(Env* env, const std::string& name, const BackendConfig& bc, StartedBackends* out) {
  // NeuronCores as slots; the runner needs the Neuron SDK (accelopt-eval doctor nki).
  if (auto gen = eval::nki::FindGeneration(bc.nki->generation); gen.ok()) out->nki_facts = eval::nki::GenerationFacts(*gen);
  eval::nki::NkiBackendOptions no;
  no.config = *bc.nki;
  no.env = env;
  // "cores": "auto" (the default): one slot per NeuronCore neuron-ls reports.
  std::string detected;
  if (Status st = eval::nki::ResolveAutoCores(&no.config, env, &detected); !st.ok()) {
    return FailedPrecondition("evaluators.nki.cores \"auto\": " + st.message() + "; " + eval::nki::kNeuronLsFix);
  }
  // The Neuron SDK's generation: which path the runner uses; an
  // unsupported version stops the start naming it and those supported.
  if (Status st = eval::nki::ResolvePython(&no.config, env); !st.ok()) {
    return FailedPrecondition("evaluators.nki.python \"auto\": " + st.message());
  }
  std::string sdk_how;
  if (Status st = eval::nki::ResolveSdk(&no.config, env, {}, &sdk_how); !st.ok()) {
    return FailedPrecondition(st.message() + " (accelopt-eval doctor nki)");
  }
  LogInfo("evaluators.nki: " + sdk_how);
  if (out->nki_facts.is_object()) {
    out->nki_facts["nki_path"] = no.config.sdk.PathName();  // the prompts name the language (prompts_nki.cpp)
    out->nki_facts["neuron_sdk"] = no.config.sdk.Release();
  }
  const int nki_slots = static_cast<int>(no.config.cores.size());
  ACCELOPT_RETURN_IF_ERROR(NeedDir(env, bc.nki->work_dir, "evaluators." + name + ".work_dir"));
  LogInfo("evaluator backend 'nki': " + std::to_string(nki_slots) + " NeuronCores (" +
          (detected.empty() ? bc.nki->cores_spec : detected) + "), " + bc.nki->generation + ", runner " +
          no.config.python);
  out->slots.push_back({std::make_shared<eval::nki::NkiBackend>(no), nki_slots, {}});
  return Status::Ok();
}

// The cpu backend: local (calibrated here) or every evaluation a Slurm job.
Status StartCpu(Env* env, const std::string& name, const BackendConfig& bc, StartedBackends* out) {
  if (bc.slurm) {
    // Every evaluation a Slurm job; the nodes calibrate themselves.
    LogInfo("evaluator backend '" + name + "': Slurm executor, " + std::to_string(bc.slots) + " jobs at once, spool " +
            bc.slurm->spool_dir);
    out->slots.push_back({std::make_shared<eval::slurm::SlurmBackend>(*bc.slurm, env), bc.slots, {}});
    return Status::Ok();
  }
  ACCELOPT_RETURN_IF_ERROR(NeedDir(env, bc.cache_dir, "evaluators." + name + ".cache_dir"));
  eval::cpu::CpuBackendOptions co;
  co.env = env;
  co.root = "/";
  co.cache_dir = bc.cache_dir;
  out->cpu_calibration = eval::cpu::CalibrationOptionsFor(bc.cache_dir, env, co.compiler);
  out->cpu_calibration.force_busy = bc.calibration_force_busy;
  out->cpu_calibration.attempts = bc.calibration_attempts;
  out->cpu_calibration.retry_wait_s = bc.calibration_retry_wait_s;
  out->cpu_calibration_path = eval::cpu::CalibrationPath(bc.cache_dir);
  NotifyStatus("calibrating the cpu backend");
  // The saved calibration of this hardware fingerprint when there is one;
  // a new measurement otherwise. Refused as busy: start anyway, cpu
  // evaluations wait for a quiet measurement (DeferredCalibration below).
  auto cal = eval::cpu::LoadOrCalibrate(out->cpu_calibration_path, out->cpu_calibration);
  if (!cal.ok() && cal.status().code() != Code::kUnavailable) {
    return FailedPrecondition("cpu calibration failed: " + cal.status().message());
  }
  if (cal.ok()) {
    co.calibration = *cal;
    out->hardware = cal->ToJson();
  } else {
    out->cpu_refused = cal.status().message();
    out->cpu_retry_after_s = bc.calibration_retry_after_s;
  }
  out->cpu = std::make_shared<eval::cpu::CpuBackend>(co);
  out->cpu_gate = std::make_shared<CalibrationGate>(out->cpu);
  // Each slot owns its cores: the judge pins the runner to them and the
  // roofline counts them. One slot: every CPU (no pinning needed).
  std::vector<std::vector<int>> slot_cores = bc.slot_cores;
  if (slot_cores.empty() && bc.slots > 1) slot_cores = eval::SplitCores(env->AllowedCpus(), bc.slots);
  out->slots.push_back({out->cpu_gate, bc.slots, slot_cores});
  return Status::Ok();
}

struct Starter {
  const char* name;
  Status (*start)(Env* env, const std::string& name, const BackendConfig& bc, StartedBackends* out);
};

// The backends a daemon can start, by their name in config.evaluators.
constexpr Starter kStarters[] = {
    {"cpu", StartCpu},
    {"cuda", StartCuda},
    {"triton", StartTriton},
    {"nki", StartNki},
};

}  // namespace

Result<StartedBackends> StartBackends(Env* env, const DaemonConfig& config) {
  StartedBackends out;
  for (const auto& [name, bc] : config.evaluators) {
    const Starter* starter = nullptr;
    for (const Starter& s : kStarters) {
      if (name == s.name) starter = &s;
    }
    if (!starter || (name == "nki" && !bc.nki)) {
      LogWarning("evaluator backend '" + name + "' is not built on this machine; skipped");
      continue;
    }
    ACCELOPT_RETURN_IF_ERROR(starter->start(env, name, bc, &out));
  }
  return out;
}

}  // namespace accelopt::daemon
