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
  if (!res.ok()) { r.how = res.status().message(); return r; }
  r.started = !(res->outcome == ProcessResult::Outcome::kExited && res->exit_code == 127);
  r.ok = res->Succeeded();
  r.out = res->stdout_data;
  r.err = res->stderr_data;
  r.how = res->Describe();
  return r;
}

}  // namespace

std::vector<DoctorCheck> RunDoctor(const NkiConfig& config, Env* env, const std::map<std::string, std::string>& extra,
                                   const std::string& dpkg_status) {
  std::vector<DoctorCheck> out;
  // The interpreter ("auto": the newest Neuron venv, evaluators/nki/venv.hpp).
  NkiConfig c = config;
  std::string auto_note;
  if (c.python == "auto") {
    if (Status st = ResolvePython(&c, env); !st.ok()) auto_note = st.message();
    else auto_note = "auto: ";
  }
  NkiConfig kc = c;  // with the SDK found and the cores the kernel check runs on
  auto add = [&](DoctorCheck d) {
    out.push_back(d);
    return d.ok;
  };
  bool all = true;
  Run py = Exec(env, {c.python, "-c", "import sys; print(sys.version.split()[0])"}, extra);
  const bool have_python = add({"python", py.ok, false,
                                py.ok ? (auto_note == "auto: " ? auto_note : "") + c.python + ": Python " + FirstLine(py.out)
                                : c.python == "auto" ? auto_note
                                                     : c.python + ": " + (py.started ? py.how : "cannot be run"),
                                "install the Neuron SDK (its PyTorch or JAX virtual environment, e.g. "
                                "/opt/aws_neuronx_venv_pytorch_2_9, found by \"auto\") or set evaluators.nki.python to its bin/python"});
  all &= have_python;
  if (have_python) {
    Run np = Exec(env, {c.python, "-c", "import numpy; print(numpy.__version__)"}, extra);
    all &= add({"numpy", np.ok, false, np.ok ? "numpy " + FirstLine(np.out) : LastLine(np.err),
                "install numpy in that environment: " + c.python + " -m pip install numpy"});
    // The SDK's generation (evaluators/nki/sdk.hpp): which path the runner uses.
    SdkProbeOptions po;
    po.python = c.python;
    po.env = extra;
    po.dpkg_status = dpkg_status;
    SdkVersions v = ProbeSdk(po, env);
    auto choice = ChooseSdk(v);
    const bool stand_in = v.stand_in;
    all &= add({"neuronxcc", choice.ok() && !stand_in, false,
                stand_in ? "this is accelopt's test-only stand-in (tests/fakes/nki), not the Neuron SDK (" +
                               DescribeVersions(v) + ")" + (choice.ok() ? "" : "; " + choice.status().message())
                : choice.ok() ? DescribeVersions(v)
                              : choice.status().message(),
                stand_in ? "remove tests/fakes/nki from PYTHONPATH; install neuronx-cc"
                         : "install the Neuron compiler in that environment: " + c.python +
                               " -m pip install neuronx-cc --extra-index-url=https://pip.repos.neuron.amazonaws.com "
                               "(Neuron 2.28 and later: also the nki package); supported: " +
                               kSupportedSdks});
    if (choice.ok()) {
      kc.sdk = *choice;
      out.push_back({"sdk", true, false, "uses " + choice->Describe(), ""});
    } else {
      out.push_back({"sdk", false, true, "not chosen: see neuronxcc", ""});
    }
  } else {
    for (const char* n : {"numpy", "neuronxcc", "sdk"}) out.push_back({n, false, true, "not checked: no interpreter", ""});
  }
  // The tools.
  const std::string profiler = kc.ProfilerCommand();
  Run prof = Exec(env, {profiler, "--help"}, extra);
  all &= add({"profiler", prof.started, false, prof.started ? profiler + ": found" : profiler + ": not found",
              "install the Neuron tools (Debian/Ubuntu: apt-get install aws-neuronx-tools; they live in "
              "/opt/aws/neuron/bin; neuron-profile up to Neuron 2.28, neuron-explorer from 2.29) or set "
              "evaluators.nki.profiler"});
  const std::string ls_exe =
      FindNeuronLs(env, extra.count("PATH") ? extra.at("PATH") : "/opt/aws/neuron/bin:/usr/local/bin:/usr/bin:/bin");
  Run ls = Exec(env, {ls_exe.empty() ? "neuron-ls" : ls_exe, "--json-output"}, extra);
  all &= add({"neuron-ls", ls.ok, false, ls.ok ? "neuron-ls: ran" : std::string("neuron-ls: ") + (ls.started ? ls.how : "not found"),
              c.auto_cores() ? std::string(kNeuronLsFix) : "install the Neuron tools (apt-get install aws-neuronx-tools)"});
  // The devices.
  std::vector<std::string> devs;
  if (auto names = env->ListDir("/dev"); names.ok())
    for (const auto& n : *names)
      if (n.rfind("neuron", 0) == 0) devs.push_back("/dev/" + n);
  all &= add({"devices", !devs.empty(), false,
              devs.empty() ? "no /dev/neuron* on this host" : std::to_string(devs.size()) + " devices (" + devs[0] + ", ...)",
              "this host needs Trainium devices and the Neuron driver (apt-get install aws-neuronx-dkms); the "
              "service needs access to /dev/neuron* (systemd drop-in: docs/evaluation.md, 'nki')"});
  // The cores: a configured list against neuron-ls, or (auto) what the daemon would use.
  if (ls.ok) {
    auto inv = ParseNeuronLsJson(ls.out);
    if (!inv.ok()) {
      all &= add({"cores", false, false, inv.status().message(), kNeuronLsFix});
    } else if (c.auto_cores()) {
      auto cores = AutoCores(*inv, env->GetEnvVar("NEURON_RT_VISIBLE_CORES"));
      if (cores.ok()) kc.cores = *cores;
      all &= add({"cores", cores.ok(), false,
                  cores.ok() ? "evaluators.nki.cores 'auto': " + inv->Describe() + " reported by neuron-ls; " +
                                   std::to_string(cores->size()) + " evaluation slots (cores " +
                                   std::to_string(cores->front()) + ".." + std::to_string(cores->back()) + ")"
                             : cores.status().message(),
                  "unset NEURON_RT_VISIBLE_CORES or make it name existing cores; or " + std::string(kNeuronLsFix)});
    } else {
      const int want_max = c.cores.empty() ? -1 : c.cores.back();
      all &= add({"cores", inv->total_cores > want_max, false,
                  std::to_string(inv->total_cores) + " NeuronCores reported by neuron-ls (" + inv->Describe() +
                      "); evaluators.nki.cores '" + c.cores_spec + "'",
                  "list only existing cores in evaluators.nki.cores (0.." +
                      std::to_string(std::max(inv->total_cores - 1, 0)) + "), or \"auto\""});
    }
  } else {
    all = false;
    out.push_back({"cores", false, true, "not checked: neuron-ls did not run", ""});
  }
  Run ref = Exec(env, {c.reference_python, "-c", "import numpy"}, {});
  all &= add({"reference", ref.ok, false,
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
  // A trivial kernel, compiled and run on the first core.
  if (all) {
    NkiBackendOptions o;
    o.config = kc;
    o.env = env;
    o.runner_env = extra;
    NkiBackend b(o);
    Status st = b.HealthCheck(kc.cores.front());
    out.push_back({"kernel", st.ok(), false,
                   st.ok() ? "an identity kernel compiled and ran on NeuronCore " + std::to_string(kc.cores.front())
                           : st.message(),
                   "see the message; run the same kernel by hand with NEURON_RT_VISIBLE_CORES=" +
                       std::to_string(kc.cores.front())});
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
