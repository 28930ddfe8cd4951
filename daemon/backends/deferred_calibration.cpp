#include "daemon/backends/deferred_calibration.hpp"

#include "base/log.hpp"

namespace accelopt::daemon::backends {

namespace {
const char kFix[] =
    "cpu evaluations wait until the machine is quiet; to accept a busy machine's figures run "
    "`acceloptctl calibrate --force --force-busy`, or start with `acceloptd --force-busy` "
    "(config: evaluators.cpu.calibration_force_busy)";
}

DeferredCalibration::DeferredCalibration(Options options, const std::string& first_reason)
    : o_(std::move(options)), reason_(first_reason) {
  since_us_ = o_.env->NowMicros();
  o_.gate->Hold(true);
  timer_ = std::make_unique<EnvTimer>(o_.ioc->get_executor(), o_.env);
}

DeferredCalibration::~DeferredCalibration() { Stop(); }

void DeferredCalibration::Start() {
  MutexLock lock(&mu_);
  LogWarning("cpu calibration refused at start; serving anyway, cpu evaluations wait (" + reason_ + "); " + kFix);
  Arm();
}

void DeferredCalibration::Arm() {
  if (stopped_ || state_ == "ready") return;
  next_attempt_us_ =
      o_.env->NowMicros() + std::chrono::duration_cast<std::chrono::microseconds>(o_.retry_after).count();
  timer_->ExpiresAfter(o_.retry_after);
  timer_->AsyncWait([this](boost::system::error_code ec) {
    if (ec) return;
    MutexLock lock(&mu_);
    if (stopped_ || state_ != "waiting") return;
    state_ = "measuring";
    ++attempts_;
    if (worker_.joinable()) worker_.join();
    worker_ = std::thread([this] { Attempt(); });
  });
}

void DeferredCalibration::Attempt() {
  Status st = o_.measure();
  MutexLock lock(&mu_);
  if (state_ == "ready") return;  // installed meanwhile (calibrate --force)
  if (st.ok()) {
    state_ = "ready";
    o_.gate->Hold(false);
    LogInfo("cpu calibration accepted after " + std::to_string(attempts_) + " attempts; cpu evaluations run");
    return;
  }
  state_ = "waiting";
  reason_ = st.message();
  LogWarning("cpu calibration refused again (attempt " + std::to_string(attempts_) + "): " + reason_);
  Arm();
}

void DeferredCalibration::Stop() {
  {
    MutexLock lock(&mu_);
    stopped_ = true;
    if (timer_) timer_->Cancel();
  }
  if (worker_.joinable()) worker_.join();
}

void DeferredCalibration::Ready() {
  MutexLock lock(&mu_);
  if (state_ == "ready") return;
  state_ = "ready";
  if (timer_) timer_->Cancel();
  o_.gate->Hold(false);
}

bool DeferredCalibration::waiting() const {
  MutexLock lock(&mu_);
  return state_ != "ready";
}

json DeferredCalibration::State() const {
  MutexLock lock(&mu_);
  json j = {{"backend", "cpu"}, {"state", state_}, {"attempts", attempts_}};
  if (state_ != "ready") {
    j["since_us"] = since_us_;
    j["reason"] = reason_;
    j["fix"] = kFix;
    if (state_ == "waiting") j["next_attempt_us"] = next_attempt_us_;
  }
  return j;
}

}  // namespace accelopt::daemon::backends
