#include "evaluators/nki/sdk.hpp"

#include <cctype>
#include <sstream>

#include "base/json.hpp"
#include "evaluators/nki/nki_config.hpp"

namespace accelopt::eval::nki {
namespace {

// "2.31.24.0+abc" -> {2, 31}; nullopt when it does not start with N.M.
std::optional<std::pair<int, int>> MajorMinor(const std::string& v) {
  size_t i = 0;
  auto num = [&](int* out) {
    if (i >= v.size() || !std::isdigit(static_cast<unsigned char>(v[i]))) return false;
    long n = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])) && n < 100000) n = n * 10 + (v[i++] - '0');
    *out = static_cast<int>(n);
    return true;
  };
  int a = 0, b = 0;
  if (!num(&a) || i >= v.size() || v[i] != '.') return std::nullopt;
  ++i;
  if (!num(&b)) return std::nullopt;
  return std::make_pair(a, b);
}

// The interpreter's side, as one JSON line on the original stdout (fd 1
// points at stderr while the SDK imports, so what it prints cannot mix in).
// Distribution metadata first (what pip installed), module attributes
// second (the stand-in has no metadata).
constexpr const char* kProbe = R"(import json, os, sys
answer = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr
r = {"accelopt_probe": 1, "neuronx_cc": None, "neuronxcc_nki": False, "neuronxcc_baremetal": False, "nki": None,
     "nki_jit": False, "nki_simulate": False, "stand_in": False, "neuronxcc_error": "", "nki_error": ""}
try:
    import importlib.metadata as md
except Exception:
    md = None
def dist(name):
    try:
        return md.version(name) if md else None
    except Exception:
        return None
def why(e):
    return ("%s: %s" % (type(e).__name__, e))[:300]
try:
    import neuronxcc
    r["neuronx_cc"] = dist("neuronx-cc") or getattr(neuronxcc, "__version__", None)
    r["stand_in"] = r["stand_in"] or bool(getattr(neuronxcc, "ACCELOPT_TEST_STAND_IN", False))
    import neuronxcc.nki
    r["neuronxcc_nki"] = True
    r["neuronxcc_baremetal"] = hasattr(neuronxcc.nki, "baremetal")
except Exception as e:
    r["neuronxcc_error"] = why(e)
try:
    import nki
    r["nki"] = getattr(nki, "__version__", None) or dist("nki") or "unknown"
    r["nki_jit"] = hasattr(nki, "jit")
    r["nki_simulate"] = hasattr(nki, "simulate")
    r["stand_in"] = r["stand_in"] or bool(getattr(nki, "ACCELOPT_TEST_STAND_IN", False))
except Exception as e:
    r["nki_error"] = why(e)
answer.write(json.dumps(r) + "\n")
answer.flush()
)";

// The last line of `out` that is a JSON object carrying "accelopt_probe".
std::optional<json> ProbeAnswer(const std::string& out) {
  size_t end = out.size();
  while (end > 0) {
    const size_t b = out.rfind('\n', end - 1);
    const size_t start = b == std::string::npos ? 0 : b + 1;
    auto j = ParseJson(out.substr(start, end - start));
    if (j.ok() && j->is_object() && j->contains("accelopt_probe")) return *j;
    if (b == std::string::npos) break;
    end = b;
  }
  return std::nullopt;
}

// The profilers that answer `--help` (found in `path`'s folders; a missing
// or not-shipped one exits 127 or is not there).
std::vector<std::string> ProbeProfilers(Env* env, const std::string& path,
                                        const std::map<std::string, std::string>& e) {
  std::vector<std::string> out;
  for (const char* name : {"neuron-explorer", "neuron-profile"}) {
    const std::string exe = FindTool(env, path, name);
    if (exe.empty()) continue;
    ProcessSpec p;
    p.argv = {exe, "--help"};
    p.clear_env = true;
    p.env_set = e;
    p.env_set["PATH"] = path;
    p.timeout = std::chrono::milliseconds(60000);
    p.max_output_bytes = 1 << 16;
    auto r = env->RunProcess(p);
    if (r.ok() && r->outcome == ProcessResult::Outcome::kExited && r->exit_code != 127 && r->exit_code != 126)
      out.push_back(exe);
  }
  return out;
}

}  // namespace

const char* const kSupportedSdks =
    "Neuron up to 2.27 (neuronxcc.nki, NKI Beta 1, the paper's path) and Neuron 2.28 to 2.34 (the nki package); "
    "newer releases start on what the probe finds";

std::string SdkChoice::Release() const {
  if (release_minor) return "2." + std::to_string(release_minor);
  return path == NkiPath::kNki ? "unknown (newer than 2." + std::to_string(kNewestKnownMinor) + "?)" : "2.27 or older";
}

std::string SdkChoice::PathName() const { return path == NkiPath::kNki ? "nki" : "neuronxcc"; }

std::string SdkChoice::Describe() const {
  std::string s = "Neuron " + Release();
  if (!release_from.empty()) s += " (" + release_from + ")";
  s += path == NkiPath::kNki ? ": the nki package path (NKI Beta 2 language, nki.jit standalone on numpy)"
                             : ": the neuronxcc.nki path (NKI Beta 1, nki.baremetal, the paper's)";
  s += ", profiler " + profiler + ", LNC by " +
       (lnc_call == "bracket" ? "kernel[lnc](...) at the call site"
        : lnc_call == "env"   ? "NEURON_LOGICAL_NC_CONFIG"
                              : "--logical-nc-config");
  if (stand_in) s += " [the test-only stand-in, not the SDK]";
  return s;
}

std::map<std::string, std::string> ParseDpkgStatus(const std::string& text) {
  std::map<std::string, std::string> out;
  std::string pkg, ver, status;
  auto flush = [&]() {
    if (!pkg.empty() && !ver.empty() && status.find("install ok installed") != std::string::npos) out[pkg] = ver;
    pkg.clear();
    ver.clear();
    status.clear();
  };
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      flush();
      continue;
    }
    auto field = [&](const char* name, std::string* dst) {
      const std::string key = std::string(name) + ":";
      if (line.rfind(key, 0) != 0) return;
      std::string v = line.substr(key.size());
      const size_t b = v.find_first_not_of(" \t");
      *dst = b == std::string::npos ? "" : v.substr(b);
    };
    field("Package", &pkg);
    field("Version", &ver);
    field("Status", &status);
  }
  flush();
  return out;
}

std::optional<int> ReleaseFromNki(const std::string& version) {
  auto mm = MajorMinor(version);
  if (!mm || mm->first != 0 || mm->second < 1) return std::nullopt;
  return mm->second == 1 ? 27 : 26 + mm->second;
}

std::optional<int> ReleaseFromTools(const std::string& version) {
  auto mm = MajorMinor(version);
  if (!mm || mm->first != 2 || mm->second < 20) return std::nullopt;
  return mm->second;
}

std::optional<int> ReleaseFromRuntime(const std::string& version) {
  auto mm = MajorMinor(version);
  if (!mm || mm->first != 2 || mm->second < 22) return std::nullopt;
  return mm->second - 2;
}

std::string DescribeVersions(const SdkVersions& v) {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (v.neuronx_cc) add("neuronx-cc " + *v.neuronx_cc + (v.neuronxcc_nki ? " (neuronxcc.nki importable)" : ""));
  if (v.nki) add("nki " + *v.nki);
  if (v.runtime) add("aws-neuronx-runtime-lib " + *v.runtime);
  if (v.tools) add("aws-neuronx-tools " + *v.tools);
  return s.empty() ? "no Neuron SDK component found" : s;
}

std::string FindTool(Env* env, const std::string& path, const std::string& name) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = path.substr(start, end - start);
    if (!dir.empty() && env->IsFile(dir + "/" + name)) return dir + "/" + name;
    start = end + 1;
  }
  return "";
}

namespace {

// The release the versions name, and which component said so.
std::optional<int> ReleaseOf(const SdkVersions& v, std::string* from, std::vector<std::string>* warnings) {
  if (v.nki) {
    if (auto r = ReleaseFromNki(*v.nki)) {
      *from = "nki " + *v.nki;
      return r;
    }
    warnings->push_back("the nki package's version '" + *v.nki + "' follows no numbering accelopt knows");
  }
  if (v.tools && ReleaseFromTools(*v.tools)) {
    *from = "aws-neuronx-tools " + *v.tools;
    return ReleaseFromTools(*v.tools);
  }
  if (v.runtime && ReleaseFromRuntime(*v.runtime)) {
    *from = "aws-neuronx-runtime-lib " + *v.runtime;
    return ReleaseFromRuntime(*v.runtime);
  }
  return std::nullopt;
}

std::string Probed(const SdkVersions& v) {
  std::string s =
      std::string("neuronxcc.nki ") + (v.neuronxcc_nki ? "imports" : "does not import") +
      (v.neuronxcc_nki ? (v.neuronxcc_baremetal ? " (with baremetal)" : " (no baremetal)") : "") +
      ", the nki package " +
      (v.nki ? "imports (" + *v.nki + (v.nki_jit ? ", jit" : ", no jit") + (v.nki_simulate ? ", simulate)" : ")")
             : std::string("does not import"));
  if (v.probed_profilers) {
    std::string names;
    for (const auto& p : v.profilers) names += (names.empty() ? "" : ", ") + p;
    s += "; profilers answering: " + (names.empty() ? std::string("none") : names);
  }
  return s;
}

}  // namespace

Result<SdkChoice> ChooseSdk(const SdkVersions& v) {
  const std::string found = DescribeVersions(v);
  auto refuse = [&](const std::string& why) {
    return Status(Code::kFailedPrecondition,
                  why + " (found: " + found + "; probed: " + Probed(v) + "; accelopt knows " + kSupportedSdks + ")");
  };
  SdkChoice c;
  c.stand_in = v.stand_in;
  c.beta1_available = v.neuronxcc_nki && (v.neuronxcc_baremetal || !v.probed);
  std::optional<int> rel = ReleaseOf(v, &c.release_from, &c.warnings);
  const bool nki_usable = v.nki.has_value() && (v.nki_jit || !v.probed);
  if (rel && *rel > kNewestKnownMinor) {
    c.newer_than_known = true;
    c.warnings.push_back("Neuron 2." + std::to_string(*rel) + " (" + c.release_from +
                         ") is newer than any release accelopt knows (up to 2." + std::to_string(kNewestKnownMinor) +
                         "); starting on what was probed: " + Probed(v));
  } else if (!rel && v.nki && !ReleaseFromNki(*v.nki)) {
    c.newer_than_known = true;
    c.warnings.push_back("the release is not known; starting on what was probed: " + Probed(v));
  }
  if (nki_usable && (!rel || *rel >= 28)) {
    c.path = NkiPath::kNki;
    c.release_minor = rel.value_or(0);
  } else if (v.neuronxcc_nki && (!rel || *rel <= 27)) {
    c.path = NkiPath::kBeta1;
    c.release_minor = rel.value_or(0);
  } else if (rel && *rel >= 28) {
    return refuse("Neuron 2." + std::to_string(*rel) + " (" + c.release_from +
                  ") compiles NKI kernels only with the nki package, which the interpreter cannot import" +
                  (v.nki_import_error.empty() ? "" : " (" + v.nki_import_error + ")"));
  } else if (v.nki) {
    return refuse("Neuron " + (rel ? "2." + std::to_string(*rel) : std::string("2.27")) +
                  ": the runner uses neuronxcc.nki up to 2.27, which the interpreter cannot import" +
                  (v.neuronxcc_import_error.empty() ? "" : " (" + v.neuronxcc_import_error + ")"));
  } else {
    std::string errs;
    if (!v.neuronxcc_import_error.empty()) errs += "neuronxcc.nki: " + v.neuronxcc_import_error;
    if (!v.nki_import_error.empty()) errs += (errs.empty() ? "" : "; ") + std::string("nki: ") + v.nki_import_error;
    return refuse("neither neuronxcc.nki nor the nki package can be imported" +
                  (errs.empty() ? "" : " (" + errs + ")"));
  }
  // The LNC call and the capture (sdk.hpp).
  const int r = c.release_minor ? c.release_minor : (c.path == NkiPath::kNki ? kNewestKnownMinor : 27);
  if (c.path == NkiPath::kBeta1) {
    c.lnc_call = "compile_flag";
  } else {
    c.lnc_call = r <= 32 ? "bracket" : "env";
    c.inspect_warmup = r >= 33;
  }
  // The profiler: the one that answers, the release's first.
  const std::string preferred = r >= 29 ? "neuron-explorer" : "neuron-profile";
  c.profiler = preferred;
  if (v.probed_profilers && !v.profilers.empty()) {
    c.profiler = v.profilers.front();
    for (const auto& p : v.profilers)
      if (p.size() >= preferred.size() && p.compare(p.size() - preferred.size(), preferred.size(), preferred) == 0)
        c.profiler = p;
  } else if (v.probed_profilers) {
    c.warnings.push_back(
        "neither neuron-explorer nor neuron-profile answers on PATH (or /opt/aws/neuron/bin): "
        "timed evaluations will fail until aws-neuronx-tools is installed");
  }
  return c;
}

SdkVersions ProbeSdk(const SdkProbeOptions& o, Env* env) {
  SdkVersions v;
  ProcessSpec p;
  p.argv = {o.python, "-c", kProbe};
  p.clear_env = true;
  p.env_set = o.env;
  if (!p.env_set.count("PATH")) p.env_set["PATH"] = "/opt/aws/neuron/bin:/usr/local/bin:/usr/bin:/bin";
  p.env_set["PYTHONDONTWRITEBYTECODE"] = "1";
  p.timeout = std::chrono::milliseconds(o.timeout_ms);
  p.max_output_bytes = 1 << 20;
  auto r = env->RunProcess(p);
  if (!r.ok()) {
    v.python_error = r.status().message();
  } else if (!r->Succeeded()) {
    v.python_error = o.python + " " + r->Describe() +
                     (r->outcome == ProcessResult::Outcome::kTimedOut
                          ? " (the probe imports neuronxcc.nki and nki; a cold first import can take minutes)"
                          : "");
  } else if (auto j = ProbeAnswer(r->stdout_data); !j) {
    v.python_error = "the probe's answer (a JSON line) is missing from its output";
  } else {
    auto str = [&](const char* k) {
      return (*j)[k].is_string() ? std::optional<std::string>((*j)[k].get<std::string>()) : std::nullopt;
    };
    v.neuronx_cc = str("neuronx_cc");
    v.neuronxcc_nki = j->value("neuronxcc_nki", false);
    v.neuronxcc_baremetal = j->value("neuronxcc_baremetal", false);
    v.nki = str("nki");
    v.nki_jit = j->value("nki_jit", false);
    v.nki_simulate = j->value("nki_simulate", false);
    v.stand_in = j->value("stand_in", false);
    v.probed = true;
    v.neuronxcc_import_error = j->value("neuronxcc_error", "");
    v.nki_import_error = j->value("nki_error", "");
  }
  if (o.probe_profilers) {
    v.probed_profilers = true;
    v.profilers = ProbeProfilers(env, p.env_set["PATH"] + ":/opt/aws/neuron/bin", o.env);
  }
  if (auto status = env->ReadFile(o.dpkg_status); status.ok()) {
    auto pkgs = ParseDpkgStatus(*status);
    if (pkgs.count("aws-neuronx-tools")) v.tools = pkgs["aws-neuronx-tools"];
    if (pkgs.count("aws-neuronx-runtime-lib")) v.runtime = pkgs["aws-neuronx-runtime-lib"];
  }
  return v;
}

Status ResolveSdk(NkiConfig* c, Env* env, const std::map<std::string, std::string>& runner_env, std::string* how,
                  const std::string& dpkg_status) {
  SdkProbeOptions o;
  o.python = c->python;
  o.env = runner_env;
  o.dpkg_status = dpkg_status;
  SdkVersions v = ProbeSdk(o, env);
  auto choice = ChooseSdk(v);
  if (!choice.ok()) {
    return Status(Code::kFailedPrecondition,
                  "evaluators.nki: " + choice.status().message() +
                      (v.python_error.empty() ? "" : "; the interpreter " + c->python + ": " + v.python_error));
  }
  c->sdk = *choice;
  if (c->generation == "trn1" && c->sdk.path == NkiPath::kNki &&
      (c->sdk.release_minor == 0 || c->sdk.release_minor >= 29)) {
    c->sdk.warnings.push_back(
        "generation trn1 on the nki package path: the NKI FAQ of Neuron 2.29 and later lists "
        "Trn2 and Trn3 only; NKI on trn1 is not documented for this release");
  }
  if (how) {
    *how = choice->Describe();
    for (const auto& w : choice->warnings) *how += "; WARNING: " + w;
  }
  return Status::Ok();
}

}  // namespace accelopt::eval::nki
