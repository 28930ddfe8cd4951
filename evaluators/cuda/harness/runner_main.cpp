// The cuda runner: the untrusted side of a cuda evaluation, owning its own
// CUDA context on the one GPU CUDA_VISIBLE_DEVICES leaves it. It speaks the
// cpu runner's wire (evaluators/judge/harness/wire.hpp: the sealed shared
// region, fixed-size commands on pipes, the same descriptors) with one
// difference: each reply is a DeviceReply, the Reply followed by the
// batch's device time (the sum of its calls' start -> stop event times).
// That number is the runner's, so the judge treats it as a claim: it bounds
// it by its own clock (docs/evaluation.md, "cuda backend").
//
// Life: map the shared region, create the context and every device buffer
// (inputs once, outputs once: each call's outputs go to its slot of the
// region), answer kNull with the same copies, NaN fill and L2 flush as a
// call but no kernel (so the judge's handshake calibration includes them),
// load the candidate on kLoad, and on kCall run runner_call.hpp's sequence
// for each call of the batch. The first device error ends the runner
// (exit 4, the message on stderr): a context that hit a CUDA error is never
// reused.
//
// NOT RUN YET on a GPU: no GPU machine was available (docs/evaluation.md,
// "cuda backend"). The judge that drives it is the shared judge in evaluators/judge/ with
// `clock device` in its job (judge_main.cpp); its decisions are tested here
// with a CPU-only fake runner (tests/fakes/cuda/fake_runner_main.cpp).
//
// usage: cuda_runner FUNCTION
#include "evaluators/cuda/harness/cuda_device.hpp"
#include "evaluators/cuda/harness/runner_loop.hpp"

int main(int argc, char** argv) {
  accelopt_cuda::CudaDevice dev;
  accelopt_cuda_runner::RunnerLoop(argc, argv, dev, [&] { return dev.Init(); });
}
