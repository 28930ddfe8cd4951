// acceloptd-module: acceloptd with one more evaluation backend, "count",
// registered through the backend modules' table alone
// (daemon/backend_module.hpp: RegisterBackendModule) -- no other production
// file knows it. Test-only; never installed. What it shows: a backend is
// one module; its config section is read and checked, it is started, its
// slots reach the dispatcher, and the API evaluates with it by name; its
// hardware facts reach every campaign's prompts and its calibration is
// measured, recorded and shown through the daemon's generic hooks
// (StartedBackend::facts, BackendCalibration); its kernels' traits and its
// prompt set are registered here too (the daemon refuses a backend
// without them).
//
//   acceloptd-module --config FILE
//
// The "count" backend measures nothing: its verdict says it is the
// throw-away test backend, with the configured label and the number of
// lines of the source it was given. Its "calibration" counts how often it
// was measured (once at start); its hardware facts, under "count", carry
// the label and that count.
#include <atomic>
#include <cstring>
#include <memory>
#include <string>

#include "base/env.hpp"
#include "base/log.hpp"
#include "daemon/backend_module.hpp"
#include "daemon/config.hpp"
#include "daemon/config_fields.hpp"
#include "daemon/daemon.hpp"
#include "evaluators/backend.hpp"
#include "workflows/backend_traits.hpp"
#include "workflows/prompt_backend.hpp"

namespace {

using namespace accelopt;

class CountBackend : public eval::Backend {
 public:
  explicit CountBackend(std::string label) : label_(std::move(label)) {}
  std::string name() const override { return "count"; }
  eval::EvalResult Evaluate(const eval::EvalRequest& request, const std::atomic<bool>*) override {
    eval::EvalResult r;
    r.status = eval::EvalStatus::kOk;
    r.compiled = true;
    r.correct = true;
    size_t lines = 0;
    for (char c : request.source) lines += c == '\n';
    r.reason =
        "the throw-away test backend '" + label_ + "' counted " + std::to_string(lines) + " lines; no measurement";
    return r;
  }

 private:
  std::string label_;
};

// The calibrate hook: a "measurement" is a count; nothing ever waits.
class CountCalibration : public daemon::BackendCalibration {
 public:
  explicit CountCalibration(std::string label) : label_(std::move(label)) {}
  json Recorded() const override { return {{"label", label_}, {"measurements", measurements_.load()}}; }
  void Start(boost::asio::io_context*, std::function<void(const json&)> accepted) override {
    accepted_ = std::move(accepted);
  }
  Result<json> Calibrate(bool force, bool) override {
    if (force) {
      ++measurements_;
      if (accepted_) accepted_(Recorded());
    }
    return Recorded();
  }
  json WaitState() const override { return nullptr; }
  void Stop() override {}

 private:
  const std::string label_;
  std::atomic<int> measurements_{1};  // the start's
  std::function<void(const json&)> accepted_;
};

daemon::BackendModule CountModule() {
  daemon::BackendModule m;
  m.name = "count";
  m.keys = {"slots", "label"};
  m.parse = [](const json& section, const std::string& where, const daemon::ConfigPaths&, daemon::BackendConfig* out) {
    ACCELOPT_RETURN_IF_ERROR(daemon::Get(section, "slots", where, out->slots));
    std::string label;
    ACCELOPT_RETURN_IF_ERROR(daemon::Get(section, "label", where, label));
    if (label.empty()) return InvalidArgument(where + ".label: required");
    if (out->slots < 1 || out->slots > 4) return InvalidArgument(where + ".slots: must be between 1 and 4");
    return Status::Ok();
  };
  m.start = [](Env*, const std::string& name, const daemon::BackendConfig& bc, daemon::StartedBackend* out) {
    LogInfo("evaluator backend '" + name + "': the throw-away test backend, " + std::to_string(bc.slots) + " slot(s)");
    const std::string label = bc.section.value("label", "");
    out->slots.push_back({std::make_shared<CountBackend>(label), bc.slots, {}});
    auto calibration = std::make_shared<CountCalibration>(label);
    out->calibration = calibration;
    out->facts = [calibration] { return json{{"count", calibration->Recorded()}}; };
    return Status::Ok();
  };
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path;
  bool check = false;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--config")) config_path = argv[i + 1];
    if (!std::strcmp(argv[i], "--check-config")) {
      config_path = argv[i + 1];
      check = true;
    }
  }
  daemon::RegisterBackendModule(CountModule());
  // Its kernels are C++ with the cpu backend's file names; its prompts the
  // generic set.
  workflows::RegisterBackendTraits({"count", "cpp", "cpp", "reference.cpp", "baseline.cpp", false, false});
  workflows::BackendPrompts prompts = workflows::GenericBackendPrompts();
  prompts.name = "count";
  workflows::RegisterBackendPrompts(prompts);
  // The same module under another name, with no traits row and no prompt
  // set: configuring it is refused at the config's parse.
  daemon::BackendModule bare = CountModule();
  bare.name = "bare";
  daemon::RegisterBackendModule(bare);
  Env* env = Env::Default();
  auto config = daemon::LoadDaemonConfig(config_path, env);
  if (!config.ok()) {
    LogError(config.status().message());
    return 1;
  }
  if (check) return 0;
  daemon::DaemonOptions options;
  options.env = env;
  return daemon::RunDaemon(*config, options);
}
