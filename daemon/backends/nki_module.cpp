// The nki backend's module: its config section (nki_section.cpp:
// evaluators/nki/nki_config.hpp's keys) and its start, which counts the
// NeuronCores ("auto"), resolves the interpreter and the Neuron SDK, and
// names the generation's facts for the prompts.
#include "daemon/backends/modules.hpp"

#include "base/log.hpp"
#include "daemon/backends/sections.hpp"
#include "daemon/notify.hpp"
#include "evaluators/nki/neuron_ls.hpp"
#include "evaluators/nki/nki_backend.hpp"
#include "evaluators/nki/roofline.hpp"
#include "evaluators/nki/sdk.hpp"
#include "evaluators/nki/venv.hpp"
#include "evaluators/slurm/slurm_backend.hpp"

namespace accelopt::daemon::backends {
namespace {

Status StartNki(Env* env, const std::string& name, const BackendConfig& bc, StartedBackend* out) {
  if (!bc.nki) {  // a config built in code without the section's parse
    LogWarning("evaluator backend '" + name + "' has no nki settings; skipped");
    return Status::Ok();
  }
  // NeuronCores as slots; the runner needs the Neuron SDK (accelopt-eval doctor nki).
  // The generation's facts for the prompts, under "nki" (workflows/prompts_nki.cpp).
  json facts;
  if (auto gen = eval::nki::FindGeneration(bc.nki->generation); gen.ok()) facts = eval::nki::GenerationFacts(*gen);
  auto publish = [out](json f) {
    if (f.is_null()) return;
    out->facts = [facts = json{{"nki", std::move(f)}}] { return facts; };
  };
  if (bc.nki->allow_test_stand_in) {
    LogWarning("evaluators." + name +
               ".allow_test_stand_in is true: results of accelopt's TEST-ONLY Neuron SDK "
               "stand-in (tests/fakes/nki) are accepted, each labelled \"" +
               std::string(eval::nki::kStandInDevice) +
               "\"; campaigns with such figures write no memory and are not ranked with measurements. Never set it on "
               "a real host");
  }
  if (bc.slurm) {
    // Every nki evaluation a Slurm job on a Trainium node: the node's
    // accelopt-eval resolves the SDK, its cores and LNC, and judges there;
    // jobs are found again after a restart as cpu jobs are (slurm_backend.hpp).
    LogInfo("evaluator backend '" + name + "': Slurm executor, " + std::to_string(bc.slots) + " jobs at once, spool " +
            bc.slurm->spool_dir + " (the nodes resolve the Neuron SDK)");
    eval::slurm::SlurmOptions so = *bc.slurm;
    // The node decides what answered; the opt-in travels with each job.
    if (bc.nki->allow_test_stand_in) so.job_args.push_back("--allow-test-stand-in");
    out->slots.push_back({std::make_shared<eval::slurm::SlurmBackend>(so, env), bc.slots, {}});
    publish(facts);
    return Status::Ok();
  }
  eval::nki::NkiBackendOptions no;
  no.config = *bc.nki;
  no.env = env;
  // "cores": "auto" (the default): one slot per NeuronCore neuron-ls reports.
  std::string detected;
  if (Status st = eval::nki::ResolveAutoCores(&no.config, env, &detected); !st.ok()) {
    return FailedPrecondition("evaluators.nki.cores \"auto\": " + st.message() + "; " + eval::nki::kNeuronLsFix);
  }
  // The Neuron SDK's generation: which path the runner uses; an
  // unsupported version stops the start naming it and those supported.
  if (Status st = eval::nki::ResolvePython(&no.config, env); !st.ok()) {
    return FailedPrecondition("evaluators.nki.python \"auto\": " + st.message());
  }
  // The probe may wait minutes for a cold first import (sdk.hpp), and the
  // start-up timing check compiles a kernel: ask systemd for the time
  // (a no-op outside systemd).
  NotifyExtendTimeout(std::chrono::minutes(8));
  std::string sdk_how;
  if (Status st = eval::nki::ResolveSdk(&no.config, env, {}, &sdk_how); !st.ok()) {
    return FailedPrecondition(st.message() + " (accelopt-eval doctor nki)");
  }
  LogInfo("evaluators.nki: " + sdk_how);
  for (const auto& w : no.config.sdk.warnings) LogWarning("evaluators.nki: " + w);
  if (facts.is_object()) {
    facts["nki_path"] = no.config.sdk.PathName();  // the prompts name the language (prompts_nki.cpp)
    facts["neuron_sdk"] = no.config.sdk.Release();
  }
  const int nki_slots = static_cast<int>(no.config.cores.size());
  ACCELOPT_RETURN_IF_ERROR(NeedDir(env, bc.nki->work_dir, "evaluators." + name + ".work_dir"));
  LogInfo("evaluator backend 'nki': " + std::to_string(nki_slots) + " NeuronCores (" +
          (detected.empty() ? bc.nki->cores_spec : detected) + "), " + bc.nki->generation + ", runner " +
          no.config.python);
  auto backend = std::make_shared<eval::nki::NkiBackend>(no);
  NotifyExtendTimeout(std::chrono::minutes(8));
  // A summary layout, capture or profiler that would fail every timed
  // evaluation stops the start here, once (issue 38).
  if (Status st = backend->StartupTimingCheck(); st.code() == Code::kFailedPrecondition) {
    return st;
  } else if (!st.ok()) {
    LogWarning("evaluators.nki: " + st.message());
  }
  out->slots.push_back({backend, nki_slots, {}});
  publish(std::move(facts));
  return Status::Ok();
}

}  // namespace

BackendModule NkiModule() {
  BackendModule m = NkiSection();
  m.start = StartNki;
  return m;
}

}  // namespace accelopt::daemon::backends
