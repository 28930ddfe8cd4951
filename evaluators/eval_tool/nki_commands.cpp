// accelopt-eval import nkibench and doctor nki: the nki (Trainium) backend's
// two setup commands (evaluators/nki/nkibench_import.hpp, doctor.hpp), and
// the nki row's maker of tool_backends.hpp.
#include "evaluators/eval_tool/commands.hpp"

#include <boost/program_options.hpp>

#include <iostream>

#include "evaluators/eval_tool/common.hpp"
#include "evaluators/eval_tool/tool_backends.hpp"
#include "evaluators/nki/doctor.hpp"
#include "evaluators/nki/neuron_ls.hpp"
#include "evaluators/nki/nki_backend.hpp"
#include "evaluators/nki/nki_config.hpp"
#include "evaluators/nki/nkibench_import.hpp"
#include "evaluators/nki/sdk.hpp"
#include "evaluators/nki/venv.hpp"

namespace po = boost::program_options;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

// A Trainium host's NeuronCores (docs/evaluation.md, "The nki backend"), or
// the CPU simulator (--nki-simulate).
Maker MakeNkiBackend(Env* env, const Common&, const BackendFlags& f) {
  auto nc = nki::NkiConfig::FromJson({{"python", f.nki_python},
                                      {"cores", f.nki_cores},
                                      {"generation", f.nki_generation},
                                      {"runner_dir", f.nki_runner_dir}},
                                     "run");
  if (!nc.ok()) return InvalidArgument(nc.status().message());
  if (f.nki_simulate) nc->cores_spec = "0", nc->cores = {0};  // no device: one slot, no neuron-ls
  if (Status st = nki::ResolveAutoCores(&*nc, env); !st.ok()) {
    return Unavailable("--nki-cores auto: " + st.message() + "; " + nki::kNeuronLsFix);
  }
  if (Status st = nki::ResolvePython(&*nc, env); !st.ok()) return Unavailable("--nki-python auto: " + st.message());
  std::string sdk_how;
  if (Status st = nki::ResolveSdk(&*nc, env, {}, &sdk_how); !st.ok()) {
    return Unavailable(st.message() + " (accelopt-eval doctor nki)");
  }
  std::cerr << "accelopt-eval: " << sdk_how << "\n";
  if (f.nki_simulate && (nc->sdk.path != nki::NkiPath::kNki || nc->sdk.release_minor < 29)) {
    return Unavailable(
        "--nki-simulate needs the nki package's CPU simulator (NKI 0.3.0, Neuron 2.29 and later); this host has " +
        nc->sdk.Describe());
  }
  if (f.nki_simulate) std::cerr << "accelopt-eval: CPU simulator: correctness only, no time\n";
  nki::NkiBackendOptions no;
  no.config = *nc;
  no.config.allow_test_stand_in = f.allow_test_stand_in;
  no.env = env;
  no.simulate = f.nki_simulate;
  if (f.allow_test_stand_in) {
    std::cerr << "accelopt-eval: --allow-test-stand-in: results of accelopt's test-only Neuron SDK stand-in are "
                 "accepted, each labelled as such; they are NOT Trainium measurements\n";
  }
  auto backend = std::make_unique<nki::NkiBackend>(no);
  if (Status st = f.startup_check ? backend->StartupTimingCheck() : Status::Ok();
      st.code() == Code::kFailedPrecondition) {
    return Unavailable(st.message());
  } else if (!st.ok()) {
    std::cerr << "accelopt-eval: warning: " << st.message() << "\n";
  }
  return std::unique_ptr<Backend>(std::move(backend));
}

int CmdImport(Env* env, const std::vector<std::string>& args) {
  std::string what, path, out, for_sdk;
  bool force = false, dry_run = false;
  po::options_description d(
      "accelopt-eval import nkibench PATH/TO/AccelOpt/NKIBench --out DIR [--force] [--dry-run]\n"
      "Writes DIR/<problem>/{problem.json, reference.py, baseline.py} for every problem of the\n"
      "checkout's summary.json (backend nki; the numpy reference and the NKI baseline are copied)");
  d.add_options()("help,h", "this help")("what", po::value(&what), "what to import: nkibench")(
      "path", po::value(&path), "the NKIBench folder of an AccelOpt checkout")(
      "out", po::value(&out), "the suite folder to write (e.g. suites/nki)")(
      "force", po::bool_switch(&force), "overwrite problem folders that exist")("dry-run", po::bool_switch(&dry_run),
                                                                                "check everything, write nothing")(
      "for-sdk", po::value(&for_sdk),
      "neuronxcc (Neuron <= 2.27) | nki (Neuron 2.28+): check each baseline for that generation (nki: the "
      "Beta 1 -> nki migration the evaluation applies; one that cannot be migrated is reported and skipped)");
  po::positional_options_description pos;
  pos.add("what", 1).add("path", 1);
  if (ParseShowingHelp(args, d, &pos)) return 0;
  if (what != "nkibench" || path.empty() || out.empty()) {
    std::cerr << d;
    return 2;
  }
  nki::ImportOptions o;
  o.nkibench_dir = path;
  o.out_dir = out;
  o.force = force;
  o.dry_run = dry_run;
  if (for_sdk == "nki")
    o.for_sdk = nki::NkiPath::kNki;
  else if (for_sdk == "neuronxcc")
    o.for_sdk = nki::NkiPath::kBeta1;
  else if (!for_sdk.empty()) {
    std::cerr << "accelopt-eval: --for-sdk: neuronxcc or nki\n";
    return 2;
  }
  auto r = nki::ImportNkiBench(o, env);
  if (!r.ok()) {
    std::cerr << "accelopt-eval: " << r.status().message() << "\n";
    return r.status().code() == Code::kInternal ? 3 : 2;  // kResourceExhausted: a problem too large for this host
  }
  for (const auto& p : *r) {
    if (!p.refused.empty()) {
      std::cout << "not imported " << p.name << ": " << p.refused << "\n";
      continue;
    }
    std::cout << (dry_run ? "would write " : "wrote ") << p.dir << "  (" << p.problem.value("paper_shape", "") << ", "
              << p.problem.value("bound", "") << ")\n    " << p.budget.Describe() << "\n";
  }
  return 0;
}

int CmdDoctor(Env* env, const std::vector<std::string>& args) {
  std::string what, python = "auto", cores = "auto", generation = "trn1";
  std::string runner_dir = "/usr/share/accelopt/nki", profiler = "auto", reference_python = "/usr/bin/python3";
  bool allow_stand_in = false;
  po::options_description d(
      "accelopt-eval doctor nki [options]\n"
      "Checks this host for the nki backend (evaluators.nki in the daemon's config); names each missing piece and its "
      "fix");
  d.add_options()("help,h", "this help")("what", po::value(&what), "nki")(
      "python", po::value(&python)->default_value(python),
      "the Neuron SDK's interpreter (evaluators.nki.python; auto: the newest /opt/aws_neuronx_venv_pytorch*)")(
      "cores", po::value(&cores)->default_value(cores),
      "the NeuronCores to use (evaluators.nki.cores; \"auto\": as the daemon, from neuron-ls)")(
      "generation", po::value(&generation)->default_value(generation), "trn1 | trn2 | trn3")(
      "runner-dir", po::value(&runner_dir)->default_value(runner_dir), "folder of runner.py and reference_runner.py")(
      "profiler", po::value(&profiler)->default_value(profiler),
      "auto (the profiler the probe finds answering: neuron-explorer from Neuron 2.29, neuron-profile before), or a "
      "path")("reference-python", po::value(&reference_python)->default_value(reference_python),
              "a Python with numpy for the trusted reference")(
      "allow-test-stand-in", po::bool_switch(&allow_stand_in),
      "count accelopt's TEST-ONLY Neuron SDK stand-in (tests/fakes/nki) as an SDK, its figures labelled (never "
      "on a real host)");
  po::positional_options_description pos;
  pos.add("what", 1);
  if (ParseShowingHelp(args, d, &pos)) return 0;
  if (what != "nki") {
    std::cerr << d;
    return 2;
  }
  auto c = nki::NkiConfig::FromJson({{"python", python},
                                     {"cores", cores},
                                     {"generation", generation},
                                     {"runner_dir", runner_dir},
                                     {"profiler", profiler},
                                     {"reference_python", reference_python}},
                                    "doctor");
  if (!c.ok()) {
    std::cerr << "accelopt-eval: " << c.status().message() << "\n";
    return 2;
  }
  c->allow_test_stand_in = allow_stand_in;
  auto checks = nki::RunDoctor(*c, env);
  // The stand-in answered (allowed): said first and last, never "can evaluate".
  bool stand_in = false;
  for (const auto& k : checks) stand_in |= k.detail.find("TEST STAND-IN") != std::string::npos;
  if (stand_in) std::cout << nki::kStandInNotice << "\n";
  std::cout << nki::FormatDoctor(checks);
  bool ok = true;
  for (const auto& k : checks) ok &= k.ok;
  std::cout << (ok && stand_in ? "the test-only stand-in can play an SDK here; this host has NOT been shown to "
                                 "evaluate NKI kernels on a Trainium\n"
                : ok           ? "this host can evaluate NKI kernels\n"
                               : "this host cannot evaluate NKI kernels yet\n");
  return ok ? 0 : 1;
}

}  // namespace accelopt::eval_tool
