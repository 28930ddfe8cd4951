#include "evaluators/nki/nki_backend.hpp"

#include <chrono>
#include <filesystem>

#include "evaluators/problem.hpp"

namespace accelopt::eval::nki {
namespace fs = std::filesystem;

const char* const kIdentityKernel = R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x))
    return out
)";

// The same kernel in the nki package's language (Neuron 2.28 and later:
// nki.isa.dma_copy between HBM tensors, as the nki.execute example of the
// Neuron docs does; unverified on a device).
const char* const kIdentityKernelNki = R"(import numpy as np
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=x)
    return out
)";

const char* IdentityKernel(NkiPath path) { return path == NkiPath::kNki ? kIdentityKernelNki : kIdentityKernel; }

const char* const kIdentityReference = R"(import numpy as np


def get_inputs():
    return [np.random.normal(size=(128, 512)).astype(np.float32)]


def forward(x):
    return x


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
)";

workflows::ProblemSpec IdentityProblem() {
  json j = {{"name", "identity"},
            {"backend", "nki"},
            {"function", "kernel"},
            {"params",
             {{{"name", "x"}, {"kind", "input"}, {"shape", {128, 512}}, {"distribution", {{"kind", "normal"}}}},
              {{"name", "out"}, {"kind", "output"}, {"shape", {128, 512}}}}},
            {"dims", json::object()},
            {"flops", 0},
            {"bytes", 2 * 128 * 512 * 4},
            {"tolerance", 1e-7}};
  return *workflows::ParseProblemSpec(j, "identity");
}

NkiBackend::NkiBackend(NkiBackendOptions options) : o_(std::move(options)) {
  if (!o_.env) o_.env = Env::Default();
  o_.allow_test_stand_in = o_.allow_test_stand_in || o_.config.allow_test_stand_in;
  pool_ = std::make_unique<NeuronCorePool>(
      o_.config.cores, [this](int core) { return HealthCheck(core); }, nullptr, o_.env);
}

NkiEvalOptions NkiBackend::EvalOptions(const EvalSettings& s) const {
  NkiEvalOptions e;
  e.runner.python = o_.config.python;
  e.runner.reference_python = o_.config.reference_python;
  e.runner.runner_script = o_.config.runner_dir + "/runner.py";
  e.runner.reference_script = o_.config.runner_dir + "/reference_runner.py";
  e.runner.profiler = o_.config.ProfilerCommand();
  e.runner.sdk_path = o_.config.sdk.PathName();
  e.runner.lnc = o_.config.lnc;
  e.runner.lnc_call = o_.config.sdk.lnc_call;
  e.runner.inspect_warmup = o_.config.sdk.inspect_warmup;
  e.beta1_available = o_.config.sdk.beta1_available;
  e.runner.simulate = o_.simulate;
  e.runner.timeout = std::chrono::milliseconds(static_cast<int64_t>(s.timeout_s * 1000));
  e.runner.env = o_.runner_env;
  if (!e.runner.env.count("PATH")) {
    // The venv's own bin first (AccelOpt ran inside the activated venv; the
    // SDK's compiler and tools may call programs from it), then the tools.
    const std::string venv_bin = fs::path(o_.config.python).parent_path().string();
    e.runner.env["PATH"] =
        (venv_bin.empty() ? "" : venv_bin + ":") + "/opt/aws/neuron/bin:/usr/local/bin:/usr/bin:/bin";
  }
  e.normal_cases = std::max<int>(5, static_cast<int>(s.seeds.size()));
  e.generation = o_.config.generation;
  e.work_root = o_.config.work_dir.empty() ? "/tmp" : o_.config.work_dir;
  e.allow_test_stand_in = o_.allow_test_stand_in;
  return e;
}

NkiEvalOutcome NkiBackend::RunIdentity(int core, bool timed) {
  Env* env = o_.env;
  const std::string dir = (o_.config.work_dir.empty() ? "/tmp" : o_.config.work_dir) + "/accelopt-nki-health-" +
                          std::to_string(core) + "-" + std::to_string(env->RandomU64() % 1000000);
  NkiEvalOutcome r;
  Status st = env->CreateDirs(dir);
  if (st.ok()) st = env->WriteFileAtomic(dir + "/reference.py", kIdentityReference);
  if (st.ok()) {
    EvalSettings s;
    s.timeout_s = 120;
    NkiEvalOptions e = EvalOptions(s);
    e.measure = timed;
    // One short round (1 warm-up, 2 captured executions): enough to see the
    // capture, the profiler and its summary work, not a measurement.
    if (timed) e.timing = TimingRule{1, 2, 1, 1.0};
    e.normal_cases = 1;
    r = EvaluateNki(IdentityProblem(), dir + "/reference.py", IdentityKernel(o_.config.sdk.path), core, e, env,
                    nullptr);
  } else {
    r.status = "internal_error";
    r.reason = st.message();
  }
  (void)env->RemoveAll(dir);
  return r;
}

Status NkiBackend::HealthCheck(int core) {
  NkiEvalOutcome r = RunIdentity(core, false);
  if (r.status != "ok") return Status(Code::kUnavailable, "identity kernel: " + r.status + ": " + r.reason);
  return Status::Ok();
}

Status NkiBackend::StartupTimingCheck() {
  if (o_.simulate || o_.config.cores.empty()) return Status::Ok();
  const int core = o_.config.cores.front();
  NkiEvalOutcome r = RunIdentity(core, true);
  if (r.status == "ok") return Status::Ok();
  const std::string what = "the start-up timing check (an identity kernel timed on NeuronCore " + std::to_string(core) +
                           " at LNC=" + std::to_string(o_.config.lnc) + ", " + o_.config.sdk.Describe() +
                           "): " + r.status + ": " + r.reason;
  for (const char* systemic :
       {"unknown summary layout", "inspect folder holds", "inspect variables were not set", " failed: "}) {
    if (r.reason.find(systemic) != std::string::npos)
      return Status(Code::kFailedPrecondition, what +
                                                   " (every timed evaluation would fail the same way; "
                                                   "accelopt-eval doctor nki)");
  }
  return Status(Code::kUnavailable, what);
}

EvalResult NkiBackend::Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) {
  const int64_t start = o_.env->MonotonicNanos();
  auto problem = LoadProblem((fs::path(o_.root) / request.problem).string(), o_.env);
  if (!problem.ok()) return EvalResult::Failure(EvalStatus::kInternalError, problem.status().message());
  if (problem->backend != "nki") {
    return EvalResult::Failure(EvalStatus::kInternalError,
                               problem->dir + ": a '" + problem->backend + "' problem, not an nki one");
  }
  workflows::ProblemSpec spec = *problem;
  if (!request.settings.adversarial) spec.adversarial.clear();
  auto core =
      pool_->Acquire(cancel, std::chrono::milliseconds(static_cast<int64_t>(request.settings.timeout_s * 1000)));
  if (!core.ok()) {
    return EvalResult::Failure(
        core.status().code() == Code::kCancelled ? EvalStatus::kCancelled : EvalStatus::kInternalError,
        core.status().message());
  }
  NkiEvalOutcome out =
      EvaluateNki(spec, problem->reference_path, request.source, *core, EvalOptions(request.settings), o_.env, cancel);
  pool_->Release(*core, out.core_suspect);

  EvalResult r;
  static const std::map<std::string, EvalStatus> kStatus = {{"ok", EvalStatus::kOk},
                                                            {"rejected", EvalStatus::kStaticCheckFailed},
                                                            {"compile_error", EvalStatus::kCompileError},
                                                            {"wrong_result", EvalStatus::kWrongResult},
                                                            {"crash", EvalStatus::kRuntimeError},
                                                            {"timeout", EvalStatus::kTimeout},
                                                            {"cancelled", EvalStatus::kCancelled},
                                                            {"internal_error", EvalStatus::kInternalError},
                                                            {"suspicious", EvalStatus::kSuspicious}};
  r.status = kStatus.count(out.status) ? kStatus.at(out.status) : EvalStatus::kInternalError;
  r.reason = out.reason;
  r.error_text = TruncateErrorText(out.runner_stderr);
  r.compiled = r.status == EvalStatus::kOk || r.status == EvalStatus::kWrongResult;
  r.correct = r.status == EvalStatus::kOk;
  if (r.correct) r.max_rel_error = out.worst_rel_error;
  if (out.timing) {
    const TimingRound& k = out.timing->rounds[out.timing->kept];
    LatencyStats l;
    l.median_us = k.median_s * 1e6;
    l.mean_us = k.mean_s * 1e6;
    l.min_us = k.min_s * 1e6;
    l.spread = k.rel_diff;
    l.rounds = static_cast<int>(out.timing->rounds.size());
    for (double s : k.samples_s) l.samples_us.push_back(s * 1e6);
    r.latency = l;
  }
  if (out.profile)
    for (const auto& [key, v] : out.profile->fields) r.profile[key] = v;
  r.percent_of_peak = out.percent_of_peak;
  r.hardware = {{"device", out.stand_in    ? kStandInDevice
                           : out.simulated ? "CPU simulator (correctness only, no time)"
                                           : "trainium"},
                {"generation", o_.config.generation},
                {"neuron_core", *core},
                {"neuron_sdk", o_.config.sdk.Release()},
                {"nki_path", o_.config.sdk.PathName()},
                {"logical_nc_config", o_.config.lnc},
                {"lnc_call", out.kernel_path == "neuronxcc" ? "compile_flag" : o_.config.sdk.lnc_call},
                {"kernel_path", out.kernel_path},
                {"capture", o_.config.sdk.path == NkiPath::kBeta1 ? "nki.baremetal save_trace_name, each timed call"
                            : o_.config.sdk.inspect_warmup
                                ? "runtime inspect, one process per timed execution, warm-ups skipped by NUM_WARMUP"
                                : "runtime inspect, one process per timed execution, the process's first execution "
                                  "(no in-process warm-up before 2.33)"}};
  if (!out.migration.empty()) r.hardware["migration"] = out.migration;
  if (out.stand_in) r.hardware["test_stand_in"] = true;  // docs/contracts.md: never ranked with measurements
  r.sandbox = {{"network_isolated", true}, {"process_group", true}, {"runner", "python"}};
  r.timings.total_s = static_cast<double>(o_.env->MonotonicNanos() - start) / 1e9;
  return r;
}

}  // namespace accelopt::eval::nki
