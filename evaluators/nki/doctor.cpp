#include "evaluators/nki/doctor.hpp"

#include "evaluators/nki/neuron_ls.hpp"
#include "evaluators/nki/nki_backend.hpp"
#include "evaluators/nki/venv.hpp"

namespace accelopt::eval::nki {
namespace {

std::string FirstLine(const std::string& s) {
  std::string t = s.substr(0, s.find('\n'));
  return t.size() > 200 ? t.substr(0, 200) : t;
}

// The last non-empty line (Python puts the exception there).
std::string LastLine(const std::string& s) {
  size_t e = s.find_last_not_of("\n ");
  if (e == std::string::npos) return "";
  size_t b = s.rfind('\n', e);
  return s.substr(b == std::string::npos ? 0 : b + 1, e - (b == std::string::npos ? 0 : b + 1) + 1);
}

struct Run {
  bool started = false, ok = false;
  std::string out, err, how;
};

Run Exec(Env* env, std::vector<std::string> argv, const std::map<std::string, std::string>& extra) {
  ProcessSpec p;
  p.argv = std::move(argv);
  p.clear_env = true;
  p.env_set = extra;
  if (!p.env_set.count("PATH")) p.env_set["PATH"] = "/opt/aws/neuron/bin:/usr/local/bin:/usr/bin:/bin";
  p.timeout = std::chrono::milliseconds(60000);
  Run r;
  auto res = env->RunProcess(p);
  if (!res.ok()) {
    r.how = res.status().message();
    return r;
  }
  r.started = !(res->outcome == ProcessResult::Outcome::kExited && res->exit_code == 127);
  r.ok = res->Succeeded();
  r.out = res->stdout_data;
  r.err = res->stderr_data;
  r.how = res->Describe();
  return r;
}

}  // namespace

namespace {

// The interpreter's SDK: what it can do and which path that gives
// (sdk.hpp). Adds the "neuronxcc" and "sdk" checks; *kc gets the choice.
bool CheckSdk(const NkiConfig& c, Env* env, const std::map<std::string, std::string>& extra, const DoctorOptions& o,
              NkiConfig* kc, std::vector<DoctorCheck>* out) {
  SdkProbeOptions po;
  po.python = c.python;
  po.env = extra;
  po.dpkg_status = o.dpkg_status;
  SdkVersions v = ProbeSdk(po, env);
  auto choice = ChooseSdk(v);
  const bool stand_in_refused = v.stand_in && !o.allow_test_stand_in && !c.allow_test_stand_in;
  std::string fix;
  if (stand_in_refused) {
    fix =
        "remove tests/fakes/nki from PYTHONPATH; install the Neuron SDK (only to try accelopt without a Trainium: "
        "--allow-test-stand-in, whose figures are labelled as the stand-in's)";
  } else if (!v.python_error.empty()) {
    fix = v.python_error.find("timed out") != std::string::npos
              ? "the interpreter did not answer the probe within " + std::to_string(kProbeTimeoutMs / 1000) +
                    " s (a cold first import of the SDK); run '" + c.python + " -c \"import nki\"' once and retry"
              : "the interpreter failed the probe: " + v.python_error;
  } else {
    std::string errs;
    if (!v.neuronxcc_import_error.empty()) errs += "neuronxcc.nki: " + v.neuronxcc_import_error;
    if (!v.nki_import_error.empty()) errs += (errs.empty() ? "" : "; ") + std::string("nki: ") + v.nki_import_error;
    fix = "install the Neuron compiler in that environment (" + c.python +
          " -m pip install neuronx-cc nki --extra-index-url=https://pip.repos.neuron.amazonaws.com)" +
          (errs.empty() ? "" : "; the imports failed with: " + errs);
  }
  const bool ok = choice.ok() && !stand_in_refused;
  std::string detail =
      stand_in_refused
          ? "this is accelopt's test-only stand-in (tests/fakes/nki), not the Neuron SDK (" + DescribeVersions(v) + ")"
      : choice.ok()
          ? DescribeVersions(v) + (v.stand_in ? " [TEST STAND-IN, allowed (allow_test_stand_in): NOT a Trainium]" : "")
          : choice.status().message();
  if (!choice.ok() && !v.python_error.empty()) detail += "; the interpreter: " + v.python_error;
  out->push_back({"neuronxcc", ok, false, detail, fix});
  if (choice.ok()) {
    kc->sdk = *choice;
    std::string d = "uses " + choice->Describe();
    for (const auto& w : choice->warnings) d += "; WARNING: " + w;
    out->push_back({"sdk", true, false, d, ""});
  } else {
    out->push_back({"sdk", false, true, "not chosen: see neuronxcc", ""});
  }
  return ok;
}

// neuron-ls and the cores (and the slot's LNC) it reports.
bool CheckCores(const NkiConfig& c, Env* env, const std::map<std::string, std::string>& extra, NkiConfig* kc,
                std::vector<DoctorCheck>* out) {
  const std::string path = extra.count("PATH") ? extra.at("PATH") : "/usr/local/bin:/usr/bin:/bin";
  std::string flag;
  auto ls = RunNeuronLs(env, path, &flag);
  bool all = true;
  auto add = [&](DoctorCheck d) {
    all &= d.ok;
    out->push_back(std::move(d));
  };
  add({"neuron-ls", ls.ok(), false, ls.ok() ? flag + ": ran" : ls.status().message(),
       c.auto_cores() ? std::string(kNeuronLsFix) : "install the Neuron tools (apt-get install aws-neuronx-tools)"});
  if (!ls.ok()) {
    out->push_back({"cores", false, true, "not checked: neuron-ls did not run", ""});
    return false;
  }
  auto inv = ParseNeuronLsJson(*ls);
  if (!inv.ok()) {
    add({"cores", false, false, inv.status().message(), kNeuronLsFix});
    return false;
  }
  // The slot's LNC: neuron-ls's, or the configured one (which must agree).
  std::string lnc_note;
  if (c.lnc_spec == "auto") {
    kc->lnc = inv->lnc.value_or(1);
  } else if (inv->lnc && *inv->lnc != c.lnc) {
    add({"cores", false, false,
         "evaluators.nki.logical_nc_config is " + std::to_string(c.lnc) + " but neuron-ls reports " +
             std::to_string(*inv->lnc) + ": every NEFF would fail to load",
         "set evaluators.nki.logical_nc_config to \"auto\" or " + std::to_string(*inv->lnc)});
    return false;
  }
  lnc_note = "; each slot a logical NeuronCore at LNC=" + std::to_string(kc->lnc);
  if (c.auto_cores()) {
    auto cores = AutoCores(*inv, env->GetEnvVar("NEURON_RT_VISIBLE_CORES"));
    if (cores.ok()) kc->cores = *cores;
    add({"cores", cores.ok(), false,
         cores.ok() ? "evaluators.nki.cores 'auto': " + inv->Describe() + " reported by neuron-ls; " +
                          std::to_string(cores->size()) + " evaluation slots (cores " + std::to_string(cores->front()) +
                          ".." + std::to_string(cores->back()) + ")" + lnc_note
                    : cores.status().message(),
         "unset NEURON_RT_VISIBLE_CORES or make it name existing cores; or " + std::string(kNeuronLsFix)});
  } else {
    const int want_max = c.cores.empty() ? -1 : c.cores.back();
    add({"cores", inv->total_cores > want_max, false,
         std::to_string(inv->total_cores) + " NeuronCores reported by neuron-ls (" + inv->Describe() +
             "); evaluators.nki.cores '" + c.cores_spec + "'" + lnc_note,
         "list only existing cores in evaluators.nki.cores (0.." + std::to_string(std::max(inv->total_cores - 1, 0)) +
             "), or \"auto\""});
  }
  return all;
}

// The fix for a failed timed identity kernel, by what failed.
std::string KernelFix(const NkiEvalOutcome& r, const NkiConfig& kc) {
  const std::string& why = r.reason;
  if (why.find("LNC") != std::string::npos || why.find("logical") != std::string::npos ||
      why.find("NEURON_LOGICAL_NC_CONFIG") != std::string::npos)
    return "the kernel's LNC and the runtime's disagree (LNC=" + std::to_string(kc.lnc) + ", set by " +
           kc.sdk.lnc_call + "): check evaluators.nki.logical_nc_config against neuron-ls";
  if (why.find("inspect") != std::string::npos)
    return "the runtime captured no device profile: the runtime's inspect variables (NEURON_RT_INSPECT_*) must reach "
           "the runtime at its start; check that nothing in the venv resets them";
  if (why.find("summary") != std::string::npos)
    return "the profiler's summary is a layout accelopt cannot read (evaluators/nki/profile.hpp): report it with the "
           "profiler's version";
  if (why.find(kc.ProfilerCommand()) != std::string::npos)
    return "the profiler failed: run it by hand on the artifacts (evaluators.nki.profiler)";
  return "run the same kernel by hand with NEURON_RT_VISIBLE_CORES=" +
         std::to_string(kc.cores.empty() ? 0 : kc.cores.front()) +
         " and NEURON_LOGICAL_NC_CONFIG=" + std::to_string(kc.lnc);
}

}  // namespace

std::vector<DoctorCheck> RunDoctor(const NkiConfig& config, Env* env, const std::map<std::string, std::string>& extra,
                                   const std::string& dpkg_status) {
  DoctorOptions o;
  o.dpkg_status = dpkg_status;
  return RunDoctor(config, env, extra, o);
}

std::vector<DoctorCheck> RunDoctor(const NkiConfig& config, Env* env, const std::map<std::string, std::string>& extra,
                                   const DoctorOptions& o) {
  std::vector<DoctorCheck> out;
  // The interpreter ("auto": the newest Neuron venv, evaluators/nki/venv.hpp).
  NkiConfig c = config;
  std::string auto_note;
  if (c.python == "auto") {
    if (Status st = ResolvePython(&c, env); !st.ok())
      auto_note = st.message();
    else
      auto_note = "auto: ";
  }
  NkiConfig kc = c;  // with the SDK found and the cores the kernel check runs on
  auto add = [&](DoctorCheck d) {
    out.push_back(d);
    return d.ok;
  };
  bool all = true;
  Run py = Exec(env, {c.python, "-c", "import sys; print(sys.version.split()[0])"}, extra);
  const bool have_python =
      add({"python", py.ok, false,
           py.ok                ? (auto_note == "auto: " ? auto_note : "") + c.python + ": Python " + FirstLine(py.out)
           : c.python == "auto" ? auto_note
                                : c.python + ": " + (py.started ? py.how : "cannot be run"),
           "install the Neuron SDK (its PyTorch or JAX virtual environment, e.g. "
           "/opt/aws_neuronx_venv_pytorch_2_9, found by \"auto\") or set evaluators.nki.python to its bin/python"});
  all &= have_python;
  if (have_python) {
    Run np = Exec(env, {c.python, "-c", "import numpy; print(numpy.__version__)"}, extra);
    all &= add({"numpy", np.ok, false, np.ok ? "numpy " + FirstLine(np.out) : LastLine(np.err),
                "install numpy in that environment: " + c.python + " -m pip install numpy"});
    all &= CheckSdk(c, env, extra, o, &kc, &out);
  } else {
    for (const char* n : {"numpy", "neuronxcc", "sdk"})
      out.push_back({n, false, true, "not checked: no interpreter", ""});
  }
  // The profiler the probe found (or the configured one).
  const std::string profiler = kc.ProfilerCommand();
  Run prof = Exec(env, {profiler, "--help"}, extra);
  const bool prof_ok = prof.started;  // as the probe: present unless not found (127)
  all &= add({"profiler", prof_ok, false,
              profiler + (prof_ok        ? ": answers"
                          : prof.started ? ": " + prof.how
                                         : ": not found"),
              "install the Neuron tools (Debian/Ubuntu: apt-get install aws-neuronx-tools; they live in "
              "/opt/aws/neuron/bin; neuron-profile up to Neuron 2.28, neuron-explorer from 2.29) or set "
              "evaluators.nki.profiler"});
  // The devices.
  std::vector<std::string> devs;
  if (auto names = env->ListDir(o.dev_dir); names.ok())
    for (const auto& n : *names)
      if (n.rfind("neuron", 0) == 0) devs.push_back(o.dev_dir + "/" + n);
  all &= add({"devices", !devs.empty(), false,
              devs.empty() ? "no " + o.dev_dir + "/neuron* on this host"
                           : std::to_string(devs.size()) + " devices (" + devs[0] + ", ...)",
              "this host needs Trainium devices and the Neuron driver (apt-get install aws-neuronx-dkms); the "
              "service needs access to /dev/neuron* (systemd drop-in: docs/evaluation.md, 'nki')"});
  all &= CheckCores(c, env, extra, &kc, &out);
  Run ref = Exec(env, {c.reference_python, "-c", "import numpy"}, {});
  all &= add(
      {"reference", ref.ok, false,
       c.reference_python + (ref.ok ? ": numpy importable" : ": " + (ref.started ? LastLine(ref.err) : "not found")),
       "install numpy for the trusted reference (apt-get install python3-numpy) or set "
       "evaluators.nki.reference_python"});
  for (const char* f : {"/runner.py", "/reference_runner.py"}) {
    const bool ok = env->IsFile(c.runner_dir + f);
    all &= add({std::string("runner") + (f[1] == 'r' && f[2] == 'e' ? " (reference)" : ""), ok, false,
                c.runner_dir + f + (ok ? ": present" : ": missing"),
                "install accelopt's nki runner files (make install puts them in share/accelopt/nki) or set "
                "evaluators.nki.runner_dir"});
  }
  // The identity kernel, compiled, run, checked and timed on the first core
  // at the slot's LNC.
  if (all && !kc.cores.empty()) {
    NkiBackendOptions bo;
    bo.config = kc;
    bo.env = env;
    bo.runner_env = extra;
    bo.allow_test_stand_in = o.allow_test_stand_in || c.allow_test_stand_in;
    NkiBackend b(bo);
    const int core = kc.cores.front();
    NkiEvalOutcome r = b.RunIdentity(core, true);
    const bool ok = r.status == "ok" && r.timing.has_value();
    out.push_back(
        {"kernel", ok, false,
         ok ? "an identity kernel compiled, ran and was timed on NeuronCore " + std::to_string(core) +
                  " at LNC=" + std::to_string(kc.lnc) + " (" + std::to_string(r.timing->latency_s * 1e6) + " us, " +
                  (r.profile ? r.profile->layout : std::string("?")) + " summary)"
            : "the timed identity kernel at LNC=" + std::to_string(kc.lnc) + ": " + r.status + ": " + r.reason,
         KernelFix(r, kc)});
  } else {
    out.push_back({"kernel", false, true, "not run: fix the checks above first", ""});
  }
  return out;
}

std::string FormatDoctor(const std::vector<DoctorCheck>& checks) {
  std::string s;
  for (const auto& c : checks) {
    const char* tag = c.ok ? "ok      " : c.skipped ? "skipped " : "MISSING ";
    s += tag + c.name + ": " + c.detail + "\n";
    if (!c.ok && !c.skipped && !c.fix.empty()) s += "        fix: " + c.fix + "\n";
  }
  return s;
}

}  // namespace accelopt::eval::nki
