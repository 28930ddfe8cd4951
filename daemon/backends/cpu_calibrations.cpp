#include "daemon/backends/cpu_calibrations.hpp"

#include <chrono>

#include "base/log.hpp"

namespace accelopt::daemon::backends {

CpuCalibrations::CpuCalibrations(Options options) : o_(std::move(options)) {}

CpuCalibrations::~CpuCalibrations() { Stop(); }

json CpuCalibrations::Recorded() const {
  // Refused at start and not accepted since: none (asking the backend would
  // measure on this thread).
  if (o_.refused && (!deferred_ || deferred_->waiting())) return nullptr;
  auto c = o_.cpu->GetCalibration();
  if (!c.ok()) return nullptr;
  return c->ToJson();
}

json CpuCalibrations::Facts() const {
  json j = Recorded();
  if (!j.is_object()) return json::object();
  j.erase("checks");
  return j;
}

void CpuCalibrations::Start(boost::asio::io_context* ioc, std::function<void(const json&)> accepted) {
  accepted_ = std::move(accepted);
  if (!o_.refused) return;
  DeferredCalibration::Options dco;
  dco.env = o_.env;
  dco.ioc = ioc;
  dco.gate = o_.gate.get();
  dco.retry_after =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(o_.retry_after_s));
  dco.measure = [this]() -> Status {
    MutexLock lock(&mu_);
    if (deferred_ && !deferred_->waiting()) return Status::Ok();  // accepted meanwhile (calibrate --force)
    auto c = eval::cpu::CalibrateAndSave(o_.path, o_.procedure);
    if (!c.ok()) return c.status();
    o_.cpu->SetCalibration(*c);
    if (accepted_) accepted_(c->ToJson());
    return Status::Ok();
  };
  deferred_ = std::make_unique<DeferredCalibration>(std::move(dco), *o_.refused);
  deferred_->Start();
}

Result<json> CpuCalibrations::Calibrate(bool force, bool force_busy) {
  MutexLock lock(&mu_);
  if (!force) {
    if (deferred_ && deferred_->waiting()) {
      return Unavailable("no cpu calibration accepted yet: " + deferred_->State().value("reason", "") + " (" +
                         deferred_->State().value("fix", "") + ")");
    }
    auto c = o_.cpu->GetCalibration();
    if (!c.ok()) return c.status();
    return c->ToJson();
  }
  // The same procedure as at start and as `accelopt-eval calibrate
  // --force`, with no evaluation of this daemon running meanwhile.
  LogInfo("re-measuring the cpu backend's peaks");
  eval::cpu::CalibrationOptions o = o_.procedure;
  o.force_busy = o.force_busy || force_busy;
  Result<eval::cpu::Calibration> c = Unavailable("calibration not run");
  int still_running = 0;
  const bool ran = o_.gate->Exclusive(
      std::chrono::seconds(120), [&] { c = eval::cpu::CalibrateAndSave(o_.path, o); }, &still_running);
  if (!ran) {
    return Unavailable("calibration refused: " + std::to_string(still_running) +
                       " evaluation(s) of this daemon still running after 120 s; pause the campaigns and retry");
  }
  if (!c.ok()) return c.status();
  o_.cpu->SetCalibration(*c);
  json j = c->ToJson();
  if (accepted_) accepted_(j);
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

}  // namespace accelopt::daemon::backends
