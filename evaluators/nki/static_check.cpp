#include "evaluators/nki/static_check.hpp"

#include "evaluators/python/python_source.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

namespace accelopt::eval::nki {
namespace {

using python::Tok;
using python::Token;

bool AllowedModule(const std::string& m) {
  auto under = [&](const std::string& root) { return m == root || m.rfind(root + ".", 0) == 0; };
  // math: pure arithmetic (NKIBench's add_rmsnorm_matmul baseline imports it).
  return m == "math" || under("numpy") || under("neuronxcc.nki") || under("nki");
}

const std::set<std::string>& NumpyFileFunctions() {
  static const std::set<std::string> k = {
      "load",    "save",       "savez",     "savez_compressed", "fromfile",   "tofile",    "loadtxt",
      "savetxt", "genfromtxt", "fromregex", "memmap",           "DataSource", "ctypeslib", "lib",
      "testing", "f2py",       "distutils"};
  return k;
}

const std::set<std::string>& NkiLaunchers() {
  static const std::set<std::string> k = {"baremetal", "benchmark", "profile", "simulate_kernel", "simulate"};
  return k;
}

}  // namespace

std::vector<Violation> FindViolations(const std::string& source) {
  std::vector<Violation> v;
  std::vector<Token> t;
  int bad = 0;
  if (!python::Tokenize(source, &t, &bad)) {
    v.push_back({bad, "syntax", "unterminated string literal"});
    return v;
  }
  std::set<std::string> numpy_aliases = {"numpy"};
  auto add = [&](int line, const char* rule, const std::string& msg) { v.push_back({line, rule, msg}); };
  for (const python::Import& im : python::Imports(t)) {
    if (im.relative) {
      add(im.line, "import", "relative imports are not allowed");
      continue;
    }
    if (!im.from) {
      if (im.module.empty()) {
        add(im.line, "import", "malformed import");
        continue;
      }
      if (!AllowedModule(im.module))
        add(im.line, "import", "import of '" + im.module + "' is not allowed (only numpy, math and the NKI modules)");
      if (im.module == "numpy") numpy_aliases.insert(im.alias);
      continue;
    }
    const std::string& m = im.module;
    bool ok = AllowedModule(m);
    if (m == "neuronxcc") {
      ok = !im.names.empty();
      for (const auto& n : im.names) ok = ok && n == "nki";
    }
    if (!ok) add(im.line, "import", "import from '" + m + "' is not allowed (only numpy, math and the NKI modules)");
    if (m == "numpy" || m.rfind("numpy.", 0) == 0) {
      for (const auto& n : im.names) {
        if (n == "*")
          add(im.line, "import", "'from numpy import *' is not allowed");
        else if (NumpyFileFunctions().count(n))
          add(im.line, "forbidden_name", "numpy." + n + " is file or test access");
      }
    }
  }
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& k = t[i];
    if (k.kind == Tok::kString) {
      for (const auto& w : python::Words(k.text))
        if (python::ReducedPrecisionWord(w)) {
          add(k.line, "reduced_precision", "'" + w + "' in a string: reduced precision is not allowed (fp32 only)");
          break;
        }
      continue;
    }
    if (k.kind != Tok::kName) continue;
    if (python::ReducedPrecisionWord(k.text)) {
      add(k.line, "reduced_precision", "'" + k.text + "': reduced precision is not allowed (fp32 only)");
      continue;
    }
    const bool attribute = i > 0 && t[i - 1].kind == Tok::kOp && t[i - 1].text == ".";
    if (python::IsDunder(k.text)) {
      add(k.line, "forbidden_name", "'" + k.text + "': dunder names are not allowed");
      continue;
    }
    if (python::ForbiddenNames().count(k.text)) {
      add(k.line, "forbidden_name", "'" + k.text + "' is not allowed (no file, process, network or timing access)");
      continue;
    }
    if (attribute && i >= 2 && t[i - 2].kind == Tok::kName && numpy_aliases.count(t[i - 2].text) &&
        NumpyFileFunctions().count(k.text)) {
      add(k.line, "forbidden_name", t[i - 2].text + "." + k.text + " is file or test access");
      continue;
    }
    if (attribute && NkiLaunchers().count(k.text)) {
      add(k.line, "forbidden_name", "'." + k.text + "': the kernel must not launch, simulate or time itself");
    }
  }
  return v;
}

Status CheckKernelSource(const std::string& source) {
  auto v = FindViolations(source);
  if (v.empty()) return Status::Ok();
  return Status(Code::kPermissionDenied, "line " + std::to_string(v[0].line) + ": " + v[0].message);
}

std::vector<Violation> FindViolations(const std::string& source, NkiPath path) {
  std::vector<Violation> v = FindViolations(source);
  std::vector<Token> t;
  int bad = 0;
  if (!python::Tokenize(source, &t, &bad)) return v;
  std::vector<Violation> gen;
  for (const python::Import& im : python::Imports(t)) {
    if (im.relative || im.module.empty()) continue;
    auto under = [&](const std::string& root) { return im.module == root || im.module.rfind(root + ".", 0) == 0; };
    if (path == NkiPath::kNki && under("neuronxcc")) {
      gen.push_back({im.line, "sdk_generation",
                     "import of '" + im.module +
                         "': this host's Neuron SDK (2.28 or later) compiles kernels only with the nki package (NKI "
                         "Beta 2: import nki, nki.language as nl, nki.isa as nisa); neuronxcc.nki inside a kernel is "
                         "a compile error from Neuron 2.28, and accelopt does not migrate Beta 1 kernels"});
    }
    if (path == NkiPath::kBeta1 && under("nki")) {
      gen.push_back({im.line, "sdk_generation",
                     "import of '" + im.module +
                         "': on this host (Neuron 2.27 or older) kernels are compiled with neuronxcc.nki (NKI Beta 1: "
                         "import neuronxcc.nki as nki, neuronxcc.nki.language as nl), not the nki package"});
    }
  }
  v.insert(v.end(), gen.begin(), gen.end());
  std::stable_sort(v.begin(), v.end(), [](const Violation& a, const Violation& b) { return a.line < b.line; });
  return v;
}

Status CheckKernelSource(const std::string& source, NkiPath path) {
  auto v = FindViolations(source, path);
  if (v.empty()) return Status::Ok();
  return Status(Code::kPermissionDenied, "line " + std::to_string(v[0].line) + ": " + v[0].message);
}

}  // namespace accelopt::eval::nki
