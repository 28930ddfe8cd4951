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

// The interpreter's side, as one JSON line. Distribution metadata first
// (what pip installed), module attributes second (the stand-in has no
// metadata).
constexpr const char* kProbe = R"(import json
r = {"neuronx_cc": None, "neuronxcc_nki": False, "nki": None, "stand_in": False}
try:
    import importlib.metadata as md
except Exception:
    md = None
def dist(name):
    try:
        return md.version(name) if md else None
    except Exception:
        return None
try:
    import neuronxcc
    r["neuronx_cc"] = dist("neuronx-cc") or getattr(neuronxcc, "__version__", None)
    r["stand_in"] = r["stand_in"] or bool(getattr(neuronxcc, "ACCELOPT_TEST_STAND_IN", False))
    import neuronxcc.nki
    r["neuronxcc_nki"] = True
except Exception:
    pass
try:
    import nki
    r["nki"] = getattr(nki, "__version__", None) or dist("nki") or "unknown"
    r["stand_in"] = r["stand_in"] or bool(getattr(nki, "ACCELOPT_TEST_STAND_IN", False))
except Exception:
    pass
print(json.dumps(r))
)";

}  // namespace

const char* const kSupportedSdks =
    "Neuron up to 2.27 (neuronxcc.nki, NKI Beta 1, the paper's path) and Neuron 2.28 to 2.33 (the nki package)";

std::string SdkChoice::Release() const {
  return release_minor ? "2." + std::to_string(release_minor) : "2.27 or older";
}

std::string SdkChoice::PathName() const { return path == NkiPath::kNki ? "nki" : "neuronxcc"; }

std::string SdkChoice::Describe() const {
  std::string s = "Neuron " + Release();
  if (!release_from.empty()) s += " (" + release_from + ")";
  s += path == NkiPath::kNki ? ": the nki package path (NKI Beta 2 language, nki.jit standalone on numpy)"
                             : ": the neuronxcc.nki path (NKI Beta 1, nki.baremetal, the paper's)";
  s += ", profiler " + profiler;
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
    if (line.empty()) { flush(); continue; }
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

Result<SdkChoice> ChooseSdk(const SdkVersions& v) {
  const std::string found = DescribeVersions(v);
  auto refuse = [&](const std::string& why) {
    return Status(Code::kFailedPrecondition, why + " (found: " + found + "; supported: " + kSupportedSdks + ")");
  };
  SdkChoice c;
  c.stand_in = v.stand_in;
  std::optional<int> rel;
  if (v.nki) {
    rel = ReleaseFromNki(*v.nki);
    if (!rel) return refuse("the nki package's version '" + *v.nki + "' is not one accelopt knows");
    c.release_from = "nki " + *v.nki;
  } else if (v.tools && ReleaseFromTools(*v.tools)) {
    rel = ReleaseFromTools(*v.tools);
    c.release_from = "aws-neuronx-tools " + *v.tools;
  } else if (v.runtime && ReleaseFromRuntime(*v.runtime)) {
    rel = ReleaseFromRuntime(*v.runtime);
    c.release_from = "aws-neuronx-runtime-lib " + *v.runtime;
  }
  if (rel && *rel > kNewestSupportedMinor) {
    return refuse("Neuron 2." + std::to_string(*rel) + " is newer than accelopt supports");
  }
  if (rel && *rel >= 28) {
    if (!v.nki) {
      return refuse("Neuron 2." + std::to_string(*rel) + " (" + c.release_from +
                    ") compiles NKI kernels only with the nki package, which the interpreter cannot import");
    }
    c.path = NkiPath::kNki;
    c.release_minor = *rel;
    c.profiler = *rel >= 29 ? "neuron-explorer" : "neuron-profile";
    return c;
  }
  // 2.27 or older (or not known): the neuronxcc.nki path.
  if (!v.neuronxcc_nki) {
    return refuse(v.nki ? "Neuron " + (rel ? "2." + std::to_string(*rel) : std::string("2.27")) +
                              ": the runner uses neuronxcc.nki up to 2.27, which the interpreter cannot import"
                        : "neither neuronxcc.nki nor the nki package can be imported");
  }
  c.path = NkiPath::kBeta1;
  c.release_minor = rel.value_or(0);
  c.profiler = "neuron-profile";
  return c;
}

SdkVersions ProbeSdk(const SdkProbeOptions& o, Env* env) {
  SdkVersions v;
  ProcessSpec p;
  p.argv = {o.python, "-c", kProbe};
  p.clear_env = true;
  p.env_set = o.env;
  if (!p.env_set.count("PATH")) p.env_set["PATH"] = "/opt/aws/neuron/bin:/usr/local/bin:/usr/bin:/bin";
  p.timeout = std::chrono::milliseconds(60000);
  p.max_output_bytes = 1 << 16;
  auto r = env->RunProcess(p);
  if (!r.ok()) {
    v.python_error = r.status().message();
  } else if (!r->Succeeded()) {
    v.python_error = o.python + " " + r->Describe();
  } else {
    const std::string line = r->stdout_data.substr(0, r->stdout_data.find('\n'));
    auto j = ParseJson(line);
    if (!j.ok() || !j->is_object()) {
      v.python_error = "the probe printed no JSON";
    } else {
      if ((*j)["neuronx_cc"].is_string()) v.neuronx_cc = (*j)["neuronx_cc"].get<std::string>();
      v.neuronxcc_nki = j->value("neuronxcc_nki", false);
      if ((*j)["nki"].is_string()) v.nki = (*j)["nki"].get<std::string>();
      v.stand_in = j->value("stand_in", false);
    }
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
  if (how) *how = choice->Describe();
  return Status::Ok();
}

}  // namespace accelopt::eval::nki
