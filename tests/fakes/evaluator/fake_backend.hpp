// FakeBackend: a scripted evaluation backend for workflow and daemon tests.
//
// A script is an ordered list of rules; the first rule whose `pattern` occurs
// in the request's source text (a plain substring; "" matches everything)
// decides the result, after an optional delay (cancellable). Without a
// matching rule the default result is returned (status ok, 100 us).
// Every call is counted, per rule and in total, and the requests are kept.
//
// Script JSON (FromJson): {"rules": [{"pattern": "...", "delay_ms": 0,
// "result": {EvalResult JSON}}], "default": {EvalResult JSON}}.
//
// Thread-safe: Evaluate may run on many threads at once.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "evaluators/backend.hpp"

namespace accelopt::eval::testing {

class FakeBackend : public Backend {
 public:
  struct Rule {
    std::string pattern;
    EvalResult result;
    int delay_ms = 0;
  };

  explicit FakeBackend(std::string name = "fake");
  static Result<FakeBackend*> FromJson(const json& script, std::string name = "fake");  // caller owns

  void AddRule(std::string pattern, EvalResult result, int delay_ms = 0);
  void SetDefault(EvalResult result);

  std::string name() const override { return name_; }
  EvalResult Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) override;

  int calls() const;
  int calls_for_rule(size_t index) const;  // index in AddRule order
  int max_concurrent() const;              // most Evaluate calls seen running at once
  std::vector<EvalRequest> requests() const;

  // Results for scripts: ok with a latency; or a failure with a reason.
  static EvalResult Ok(double median_us, double spread = 0.01);
  static EvalResult Fail(EvalStatus status, std::string reason);

 private:
  std::string name_;
  mutable std::mutex mu_;
  std::vector<Rule> rules_;
  std::vector<int> rule_calls_;
  EvalResult default_;
  int calls_ = 0;
  int running_ = 0;
  int max_running_ = 0;
  std::vector<EvalRequest> requests_;
};

}  // namespace accelopt::eval::testing
