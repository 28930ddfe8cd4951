// The cpu backend's module: its config section (cpu_section.cpp: slots and
// their cores, the calibration's patience, a local or Slurm executor) and
// its start, which calibrates (or defers the calibration of a busy host),
// puts the backend behind its calibration gate and hands the daemon its
// hooks: the calibration's hardware facts and its calibrations while the
// daemon runs (cpu_calibrations.hpp).
#include "daemon/backends/modules.hpp"

#include "base/log.hpp"
#include "daemon/backends/cpu_calibrations.hpp"
#include "daemon/backends/sections.hpp"
#include "daemon/calibration_gate.hpp"
#include "daemon/notify.hpp"
#include "evaluators/cpu/calibration.hpp"
#include "evaluators/cpu/cpu_backend.hpp"
#include "evaluators/slurm/slurm_backend.hpp"

namespace accelopt::daemon::backends {
namespace {

// The cpu backend: local (calibrated here) or every evaluation a Slurm job.
Status StartCpu(Env* env, const std::string& name, const BackendConfig& bc, StartedBackend* out) {
  if (bc.slurm) {
    // Every evaluation a Slurm job; the nodes calibrate themselves (no
    // facts, no calibrate hook here).
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
  co.refill_stock = true;  // fresh timing cases made while the evaluator is idle
  co.reference_cache_max_bytes = static_cast<uint64_t>(bc.reference_cache_max_gb * double(uint64_t{1} << 30));
  CpuCalibrations::Options cal;
  cal.env = env;
  cal.procedure = eval::cpu::CalibrationOptionsFor(bc.cache_dir, env, co.compiler);
  cal.procedure.force_busy = bc.calibration_force_busy;
  cal.procedure.attempts = bc.calibration_attempts;
  cal.procedure.retry_wait_s = bc.calibration_retry_wait_s;
  cal.path = eval::cpu::CalibrationPath(bc.cache_dir);
  NotifyStatus("calibrating the cpu backend");
  // The saved calibration of this hardware fingerprint when there is one;
  // a new measurement otherwise. Refused as busy: start anyway, cpu
  // evaluations wait for a quiet measurement (CpuCalibrations' retries).
  auto measured = eval::cpu::LoadOrCalibrate(cal.path, cal.procedure);
  if (!measured.ok() && measured.status().code() != Code::kUnavailable) {
    return FailedPrecondition("cpu calibration failed: " + measured.status().message());
  }
  if (measured.ok()) {
    co.calibration = *measured;
  } else {
    cal.refused = measured.status().message();
    cal.retry_after_s = bc.calibration_retry_after_s;
  }
  cal.cpu = std::make_shared<eval::cpu::CpuBackend>(co);
  cal.gate = std::make_shared<CalibrationGate>(cal.cpu);
  // Each slot owns its cores: the judge pins the runner to them and the
  // roofline counts them. One slot: every CPU (no pinning needed).
  std::vector<std::vector<int>> slot_cores = bc.slot_cores;
  if (slot_cores.empty() && bc.slots > 1) slot_cores = eval::SplitCores(env->AllowedCpus(), bc.slots);
  out->slots.push_back({cal.gate, bc.slots, slot_cores});
  auto calibrations = std::make_shared<CpuCalibrations>(std::move(cal));
  out->facts = [calibrations] { return calibrations->Facts(); };
  out->calibration = calibrations;
  return Status::Ok();
}

}  // namespace

BackendModule CpuModule() {
  BackendModule m = CpuSection();
  m.start = StartCpu;
  return m;
}

}  // namespace accelopt::daemon::backends
