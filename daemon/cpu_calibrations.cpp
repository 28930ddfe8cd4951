#include "daemon/cpu_calibrations.hpp"

#include <chrono>

#include "base/log.hpp"

namespace accelopt::daemon {

CpuCalibrations::CpuCalibrations(Env* env, boost::asio::io_context* ioc, const StartedBackends* backends,
                                 std::function<void(const json&)> accepted)
    : env_(env), ioc_(ioc), be_(backends), accepted_(std::move(accepted)) {}

CpuCalibrations::~CpuCalibrations() { Stop(); }

void CpuCalibrations::StartRetriesIfRefused() {
  if (!be_->cpu_refused) return;
  DeferredCalibration::Options dco;
  dco.env = env_;
  dco.ioc = ioc_;
  dco.gate = be_->cpu_gate.get();
  dco.retry_after =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(be_->cpu_retry_after_s));
  dco.measure = [this]() -> Status {
    MutexLock lock(&mu_);
    if (deferred_ && !deferred_->waiting()) return Status::Ok();  // accepted meanwhile (calibrate --force)
    auto c = eval::cpu::CalibrateAndSave(be_->cpu_calibration_path, be_->cpu_calibration);
    if (!c.ok()) return c.status();
    be_->cpu->SetCalibration(*c);
    accepted_(c->ToJson());
    return Status::Ok();
  };
  deferred_ = std::make_unique<DeferredCalibration>(std::move(dco), *be_->cpu_refused);
  deferred_->Start();
}

Result<json> CpuCalibrations::Calibrate(bool force, bool force_busy) {
  MutexLock lock(&mu_);
  if (!be_->cpu) return NotFound("the cpu backend is not configured");
  if (!force) {
    if (deferred_ && deferred_->waiting()) {
      return Unavailable("no cpu calibration accepted yet: " + deferred_->State().value("reason", "") + " (" +
                         deferred_->State().value("fix", "") + ")");
    }
    auto c = be_->cpu->GetCalibration();
    if (!c.ok()) return c.status();
    return c->ToJson();
  }
  // The same procedure as at start and as `accelopt-eval calibrate
  // --force`, with no evaluation of this daemon running meanwhile.
  LogInfo("re-measuring the cpu backend's peaks");
  eval::cpu::CalibrationOptions o = be_->cpu_calibration;
  o.force_busy = o.force_busy || force_busy;
  Result<eval::cpu::Calibration> c = Unavailable("calibration not run");
  int still_running = 0;
  const bool ran = be_->cpu_gate->Exclusive(
      std::chrono::seconds(120), [&] { c = eval::cpu::CalibrateAndSave(be_->cpu_calibration_path, o); },
      &still_running);
  if (!ran) {
    return Unavailable("calibration refused: " + std::to_string(still_running) +
                       " evaluation(s) of this daemon still running after 120 s; pause the campaigns and retry");
  }
  if (!c.ok()) return c.status();
  be_->cpu->SetCalibration(*c);
  json j = c->ToJson();
  accepted_(j);
  if (deferred_) deferred_->Ready();
  return j;
}

json CpuCalibrations::WaitState() const {
  if (!deferred_ || !deferred_->waiting()) return nullptr;
  return deferred_->State();
}

void CpuCalibrations::Stop() {
  if (deferred_) deferred_->Stop();
}

}  // namespace accelopt::daemon
