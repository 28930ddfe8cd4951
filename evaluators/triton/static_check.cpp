#include "evaluators/triton/static_check.hpp"

#include <cctype>
#include <set>
#include <sstream>

#include "evaluators/python/python_source.hpp"

namespace accelopt::eval::triton {
namespace {

using python::Tok;
using python::Token;

bool TritonModuleAllowed(const std::string& m) {
  return m == "triton" || m == "triton.language" || m == "torch" || m == "math";
}

// torch.<name>: allocation and dtypes only.
const std::set<std::string>& TorchAllowed() {
  static const std::set<std::string> k = {"empty", "empty_like", "zeros", "zeros_like", "full", "float32",
                                          "int32", "int64",      "int8",  "uint8",      "bool", "cuda"};
  return k;
}
// torch.cuda.<name>.
const std::set<std::string>& TorchCudaAllowed() {
  static const std::set<std::string> k = {"current_stream", "synchronize", "current_device", "Stream", "stream"};
  return k;
}
// Methods host code may call on a tensor (or anything not a module).
const std::set<std::string>& HostMethodsAllowed() {
  static const std::set<std::string> k = {"numel",    "stride",       "size",          "view",
                                          "data_ptr", "element_size", "is_contiguous", "dim"};
  return k;
}
// Attributes of triton that reach its runtime, compiler or unreadable code.
const std::set<std::string>& TritonAttributesForbidden() {
  static const std::set<std::string> k = {"runtime", "driver", "compiler", "knobs", "testing", "extra", "libdevice"};
  return k;
}

bool IsOp(const Token& t, const char* op) { return t.kind == Tok::kOp && t.text == op; }
bool IsArithmetic(const Token& t) {
  return t.kind == Tok::kOp && t.text.size() == 1 && std::string("+-*/%@&|^~").find(t.text[0]) != std::string::npos;
}

// Leading whitespace of each line (1-based).
std::vector<int> LineIndents(const std::string& source) {
  std::vector<int> out = {0};
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    int n = 0;
    while (n < static_cast<int>(line.size()) && (line[n] == ' ' || line[n] == '\t')) ++n;
    out.push_back(n);
  }
  out.push_back(0);
  return out;
}

}  // namespace

std::vector<TritonViolation> FindTritonViolations(const std::string& source,
                                                  const std::vector<std::string>& tensor_names) {
  std::vector<TritonViolation> v;
  std::vector<Token> t;
  int bad = 0;
  if (!python::Tokenize(source, &t, &bad)) {
    v.push_back({bad, "syntax", "unterminated string literal"});
    return v;
  }
  auto add = [&](int line, const char* rule, const std::string& msg) { v.push_back({line, rule, msg}); };

  // Imports; the names the modules are bound to.
  std::set<std::string> torch_names = {"torch"}, modules = {"triton", "torch", "math"};
  std::set<std::string> from_torch;  // names imported from torch
  for (const python::Import& im : python::Imports(t)) {
    if (im.relative) {
      add(im.line, "import", "relative imports are not allowed");
      continue;
    }
    if (im.module.empty()) {
      add(im.line, "import", "malformed import");
      continue;
    }
    if (!TritonModuleAllowed(im.module)) {
      add(im.line, "import",
          std::string(im.from ? "import from '" : "import of '") + im.module +
              "' is not allowed (only triton, triton.language, torch and math)");
      continue;
    }
    if (!im.from) {
      modules.insert(im.alias);
      if (im.module == "torch") torch_names.insert(im.alias);
      continue;
    }
    for (const auto& n : im.names) {
      if (n == "*")
        add(im.line, "import", "'from " + im.module + " import *' is not allowed");
      else if (im.module == "torch") {
        if (!TorchAllowed().count(n))
          add(im.line, "torch", "torch." + n + ": torch may only allocate (torch.empty, ...), not do the work");
        from_torch.insert(n);
      } else if (im.module == "triton" && n == "language") {
        modules.insert(n);
      }
    }
  }

  // Which statements are inside @triton.jit functions (kernel code) and
  // which are host code: by the top-level statement each token follows.
  const std::vector<int> indent = LineIndents(source);
  std::vector<bool> in_kernel(t.size(), false);
  std::vector<bool> statement_start(t.size(), false);
  {
    bool kernel = false, pending_jit = false;
    for (size_t i = 0; i < t.size(); ++i) {
      const bool start = i == 0 || t[i - 1].kind == Tok::kNewline || IsOp(t[i - 1], ";");
      if (start && t[i].kind != Tok::kNewline) {
        statement_start[i] = true;
        const int line = t[i].line;
        const bool top =
            line < static_cast<int>(indent.size()) && indent[line] == 0 && (i == 0 || !IsOp(t[i - 1], ";"));
        if (top) {
          if (IsOp(t[i], "@")) {
            for (size_t k = i; k < t.size() && t[k].kind != Tok::kNewline; ++k)
              if (t[k].kind == Tok::kName && t[k].text == "jit") pending_jit = true;
            kernel = false;
          } else if (t[i].kind == Tok::kName && t[i].text == "def") {
            kernel = pending_jit;
            pending_jit = false;
          } else {
            kernel = false;
            pending_jit = false;
          }
        }
      }
      in_kernel[i] = kernel;
    }
  }

  // Tensor names: the problem's buffers and what host code allocates.
  std::set<std::string> tensors(tensor_names.begin(), tensor_names.end());
  for (size_t i = 0; i + 4 < t.size(); ++i) {
    if (in_kernel[i] || t[i].kind != Tok::kName || !IsOp(t[i + 1], "=")) continue;
    size_t k = i + 2;
    if (t[k].kind == Tok::kName && torch_names.count(t[k].text) && IsOp(t[k + 1], ".") && k + 2 < t.size()) k += 2;
    if (t[k].kind == Tok::kName && (t[k].text == "empty" || t[k].text == "empty_like" || t[k].text == "zeros" ||
                                    t[k].text == "zeros_like" || t[k].text == "full"))
      tensors.insert(t[i].text);
  }

  for (size_t i = 0; i < t.size(); ++i) {
    const Token& k = t[i];
    const bool attribute = i > 0 && IsOp(t[i - 1], ".");
    const bool called = i + 1 < t.size() && IsOp(t[i + 1], "(");
    if (k.kind == Tok::kString) {
      for (const auto& w : python::Words(k.text))
        if (python::ReducedPrecisionWord(w)) {
          add(k.line, "reduced_precision", "'" + w + "' in a string: reduced precision is not allowed (fp32 only)");
          break;
        }
      continue;
    }
    if (k.kind == Tok::kOp) {
      if (k.text == "@" && !statement_start[i])
        add(k.line, "tensor_core",
            "the '@' operator is not allowed (tl.dot at TF32 in a kernel, a torch matmul on the host)");
      continue;
    }
    if (k.kind != Tok::kName) continue;
    const std::string& n = k.text;
    if (python::ReducedPrecisionWord(n)) {
      add(k.line, "reduced_precision", "'" + n + "': reduced precision is not allowed (fp32 only)");
      continue;
    }
    if (python::IsDunder(n)) {
      add(k.line, "forbidden_name", "'" + n + "': dunder names are not allowed");
      continue;
    }
    if (python::ForbiddenNames().count(n)) {
      add(k.line, "forbidden_name", "'" + n + "' is not allowed (no file, process, network or timing access)");
      continue;
    }
    if (n == "inline_asm_elementwise" || (attribute && TritonAttributesForbidden().count(n))) {
      add(k.line, "forbidden_name",
          "'" + n + "' is not allowed (triton's runtime, compiler, test timers and inline PTX are out of reach)");
      continue;
    }
    if (n == "dot_scaled") {
      add(k.line, "tensor_core", "dot_scaled is reduced precision");
      continue;
    }
    if (n == "allow_tf32") {
      if (!(i + 2 < t.size() && IsOp(t[i + 1], "=") && t[i + 2].kind == Tok::kName && t[i + 2].text == "False"))
        add(k.line, "tensor_core", "allow_tf32 may only be False (fp32 accuracy)");
      continue;
    }
    if (n == "input_precision") {
      if (!(i + 2 < t.size() && IsOp(t[i + 1], "=") && t[i + 2].kind == Tok::kString && t[i + 2].text == "ieee"))
        add(k.line, "tensor_core", "input_precision may only be \"ieee\" (tf32 and tf32x3 are not fp32 accurate)");
      continue;
    }
    if (attribute && n == "dot" && called) {
      bool precise = false;
      int depth = 0;
      for (size_t j = i + 1; j < t.size(); ++j) {
        if (IsOp(t[j], "(") || IsOp(t[j], "[") || IsOp(t[j], "{"))
          ++depth;
        else if (IsOp(t[j], ")") || IsOp(t[j], "]") || IsOp(t[j], "}")) {
          if (--depth == 0) break;
        } else if (depth == 1 && t[j].kind == Tok::kName &&
                   (t[j].text == "input_precision" || t[j].text == "allow_tf32")) {
          precise = true;
        }
      }
      if (!precise)
        add(k.line, "tensor_core",
            ".dot without input_precision=\"ieee\": Triton rounds fp32 inputs to TF32 by default (10-bit mantissa)");
      continue;
    }
    // torch: allocation only.
    if (!attribute && torch_names.count(n) && i + 2 < t.size() && IsOp(t[i + 1], ".") && t[i + 2].kind == Tok::kName) {
      const std::string& a = t[i + 2].text;
      if (!TorchAllowed().count(a)) {
        add(k.line, "torch", n + "." + a + ": torch may only allocate (torch.empty, ...), not do the work");
      } else if (a == "cuda" && i + 4 < t.size() && IsOp(t[i + 3], ".") && t[i + 4].kind == Tok::kName &&
                 !TorchCudaAllowed().count(t[i + 4].text)) {
        add(k.line, "torch",
            n + ".cuda." + t[i + 4].text +
                " is not allowed (only current_stream, synchronize, current_device, Stream, stream)");
      }
      continue;
    }
    if (in_kernel[i]) continue;
    // Host code: no work done by methods or operators on tensors.
    if (attribute && called && i >= 2) {
      const Token& base = t[i - 2];
      const bool module = base.kind == Tok::kName && modules.count(base.text) && !(i >= 3 && IsOp(t[i - 3], "."));
      if (!module && !HostMethodsAllowed().count(n))
        add(k.line, "torch",
            "." + n + "() on the host: host code may only size, view and launch (the work is the kernels')");
      continue;
    }
    if (!attribute && tensors.count(n)) {
      const bool before = i >= 1 && IsArithmetic(t[i - 1]) &&
                          !(IsOp(t[i - 1], "*") && (i < 2 || IsOp(t[i - 2], "(") || IsOp(t[i - 2], ",")));
      const bool after = i + 1 < t.size() && IsArithmetic(t[i + 1]);
      bool subscript_assign = false;
      if (i + 1 < t.size() && IsOp(t[i + 1], "[")) {
        int depth = 0;
        size_t j = i + 1;
        for (; j < t.size(); ++j) {
          if (IsOp(t[j], "["))
            ++depth;
          else if (IsOp(t[j], "]") && --depth == 0)
            break;
        }
        subscript_assign = j + 2 < t.size() && IsOp(t[j + 1], "=") && !IsOp(t[j + 2], "=");
      }
      if (before || after || subscript_assign)
        add(k.line, "torch",
            "'" + n + "' is a tensor: arithmetic or assignment on it in host code is torch doing the work");
    }
  }
  return v;
}

Status CheckTritonSource(const std::string& source, const std::vector<std::string>& tensor_names) {
  auto v = FindTritonViolations(source, tensor_names);
  if (v.empty()) return Status::Ok();
  return Status(Code::kPermissionDenied, "line " + std::to_string(v[0].line) + ": " + v[0].message);
}

}  // namespace accelopt::eval::triton
