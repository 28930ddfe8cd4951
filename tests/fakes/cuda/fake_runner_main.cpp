// The cuda runner's test double as a process: the real runner loop
// (evaluators/cuda/harness/runner_loop.hpp, the protocol the judge drives)
// on a CPU-only device (host memory; "kernels" are cpu .so files called on
// host pointers). Test-only: compiled by tests/evaluators/cuda_judge_test.cpp
// with a problem's runner glue; never built into the evaluator.
//
// Its "device time" is read from the host clock between Start and Stop, so
// it is not a GPU measurement of anything: the tests only use it to check
// the judge's decisions about a runner's claims. (The tests' kernel sleeps
// for milliseconds, so a lie is large next to the handshake.)
//
// The mode is the executable's name suffix (the judge passes no arguments
// but the function name, and an empty environment):
//   ..._honest  reports the measured start -> stop time
//   ..._under   reports 1/50 of it (a runner hiding time from the judge)
//   ..._over    reports it plus 5 s (a claim larger than the round trip)
#include <time.h>

#include <string>

#include "evaluators/cuda/harness/runner_loop.hpp"
#include "tests/fakes/cuda/fake_device.hpp"

namespace {

double FakeRunnerNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec);
}

class HostClockedFakeDevice : public accelopt_cuda::fake::FakeDevice {
 public:
  explicit HostClockedFakeDevice(std::string mode) : mode_(std::move(mode)) {}
  bool Start() override {
    t0_ = FakeRunnerNowNs();
    return FakeDevice::Start();
  }
  bool Stop(double* ns) override {
    if (!FakeDevice::Stop(ns)) return false;
    const double measured = FakeRunnerNowNs() - t0_;
    *ns = mode_ == "under" ? measured / 50 : mode_ == "over" ? measured + 5e9 : measured;
    log.clear();  // the log is for the unit tests of runner_call.hpp; a runner would grow it forever
    return true;
  }

 private:
  std::string mode_;
  double t0_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const std::string self = argc > 0 ? argv[0] : "";
  const std::string mode = self.substr(self.rfind('_') + 1);
  if (mode != "honest" && mode != "under" && mode != "over")
    accelopt_cuda_runner::RunnerDie("unknown fake mode " + mode);
  HostClockedFakeDevice dev(mode);
  accelopt_cuda_runner::RunnerLoop(argc, argv, dev, [] { return true; });
}
