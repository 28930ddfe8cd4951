#include "tests/fakes/evaluator/fake_backend.hpp"

#include <chrono>
#include <thread>

namespace accelopt::eval::testing {

FakeBackend::FakeBackend(std::string name) : name_(std::move(name)), default_(Ok(100)) {}

Result<FakeBackend*> FakeBackend::FromJson(const json& script, std::string name) {
  auto fake = std::make_unique<FakeBackend>(std::move(name));
  if (!script.is_object()) return InvalidArgument("fake script: must be an object");
  if (script.contains("default")) {
    ACCELOPT_ASSIGN_OR_RETURN(EvalResult d, EvalResult::FromJson(script["default"]));
    fake->SetDefault(d);
  }
  for (const auto& r : script.value("rules", json::array())) {
    if (!r.is_object() || !r.contains("result")) return InvalidArgument("fake script: a rule needs a result");
    ACCELOPT_ASSIGN_OR_RETURN(EvalResult res, EvalResult::FromJson(r["result"]));
    fake->AddRule(r.value("pattern", ""), res, r.value("delay_ms", 0));
  }
  return fake.release();
}

void FakeBackend::AddRule(std::string pattern, EvalResult result, int delay_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back({std::move(pattern), std::move(result), delay_ms});
  rule_calls_.push_back(0);
}

void FakeBackend::SetDefault(EvalResult result) {
  std::lock_guard<std::mutex> lock(mu_);
  default_ = std::move(result);
}

EvalResult FakeBackend::Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) {
  EvalResult result;
  int delay = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++calls_;
    max_running_ = std::max(max_running_, ++running_);
    requests_.push_back(request);
    result = default_;
    for (size_t i = 0; i < rules_.size(); ++i) {
      if (request.source.find(rules_[i].pattern) != std::string::npos) {
        ++rule_calls_[i];
        result = rules_[i].result;
        delay = rules_[i].delay_ms;
        break;
      }
    }
  }
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(delay);
  bool cancelled = false;
  while (std::chrono::steady_clock::now() < end) {
    if (cancel && cancel->load()) {
      cancelled = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
  }
  if (cancelled) return EvalResult::Failure(EvalStatus::kCancelled, "cancelled");
  return result;
}

int FakeBackend::calls() const {
  std::lock_guard<std::mutex> l(mu_);
  return calls_;
}
int FakeBackend::calls_for_rule(size_t i) const {
  std::lock_guard<std::mutex> l(mu_);
  return i < rule_calls_.size() ? rule_calls_[i] : 0;
}
int FakeBackend::max_concurrent() const {
  std::lock_guard<std::mutex> l(mu_);
  return max_running_;
}
std::vector<EvalRequest> FakeBackend::requests() const {
  std::lock_guard<std::mutex> l(mu_);
  return requests_;
}

EvalResult FakeBackend::Ok(double median_us, double spread) {
  EvalResult r;
  r.status = EvalStatus::kOk;
  r.compiled = r.correct = true;
  r.reason = "fake: ok";
  LatencyStats l;
  l.median_us = l.min_us = l.mean_us = median_us;
  l.spread = spread;
  l.rounds = 1;
  l.samples_us = {median_us};
  r.latency = l;
  r.hardware = {{"fingerprint", "fake"}};
  return r;
}

EvalResult FakeBackend::Fail(EvalStatus status, std::string reason) {
  EvalResult r = EvalResult::Failure(status, std::move(reason));
  r.compiled = status != EvalStatus::kCompileError && status != EvalStatus::kStaticCheckFailed;
  return r;
}

}  // namespace accelopt::eval::testing
