#include "evaluators/nki/static_check.hpp"

#include <cctype>
#include <cstring>
#include <set>

namespace accelopt::eval::nki {
namespace {

enum class Tok { kName, kString, kOp, kNumber, kNewline };

struct Token {
  Tok kind;
  std::string text;  // names, operators, numbers; string contents
  int line;
};

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool IsNameChar(char c) { return IsNameStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

// Python tokens; logical newlines (outside brackets) as kNewline. Returns
// false on an unterminated string.
bool Tokenize(const std::string& s, std::vector<Token>* out, int* bad_line) {
  int line = 1, depth = 0;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '\n') {
      if (depth == 0) out->push_back({Tok::kNewline, "", line});
      ++line;
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') { i += 2; ++line; continue; }
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    // String prefixes (r, b, f, u and their pairs) then a quote.
    size_t j = i;
    while (j < s.size() && j - i < 2 && s[j] != '\0' && std::strchr("rRbBfFuU", s[j])) ++j;
    if (j < s.size() && (s[j] == '\'' || s[j] == '"')) {
      const char q = s[j];
      const bool triple = j + 2 < s.size() && s[j + 1] == q && s[j + 2] == q;
      const bool raw = std::string(s, i, j - i).find_first_of("rR") != std::string::npos;
      size_t k = j + (triple ? 3 : 1);
      std::string body;
      const int start = line;
      bool closed = false;
      while (k < s.size()) {
        if (s[k] == '\\' && !raw && k + 1 < s.size()) {
          if (s[k + 1] == '\n') ++line;
          body += s[k + 1];
          k += 2;
          continue;
        }
        if (s[k] == '\n') {
          if (!triple) break;
          ++line;
        }
        if (s[k] == q && (!triple || (k + 2 < s.size() && s[k + 1] == q && s[k + 2] == q))) {
          k += triple ? 3 : 1;
          closed = true;
          break;
        }
        body += s[k];
        ++k;
      }
      if (!closed) { *bad_line = start; return false; }
      out->push_back({Tok::kString, body, start});
      i = k;
      continue;
    }
    if (IsNameStart(c)) {
      size_t k = i;
      while (k < s.size() && IsNameChar(s[k])) ++k;
      out->push_back({Tok::kName, s.substr(i, k - i), line});
      i = k;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t k = i;
      while (k < s.size() && (IsNameChar(s[k]) || s[k] == '.')) ++k;
      out->push_back({Tok::kNumber, s.substr(i, k - i), line});
      i = k;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    out->push_back({Tok::kOp, std::string(1, c), line});
    ++i;
  }
  out->push_back({Tok::kNewline, "", line});
  return true;
}

bool ReducedPrecisionWord(const std::string& w) {
  static const std::set<std::string> kWords = {"float16", "bfloat16", "fp16", "bf16", "half", "tfloat32", "tf32",
                                               "float8", "fp8"};
  std::string l;
  for (char c : w) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (kWords.count(l)) return true;
  return l.rfind("float8_", 0) == 0 || l.rfind("fp8_", 0) == 0 || l.rfind("float8e", 0) == 0;
}

// Words of a string's contents (runs of identifier characters).
std::vector<std::string> Words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (IsNameChar(c)) cur += c;
    else if (!cur.empty()) { out.push_back(cur); cur.clear(); }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool AllowedModule(const std::string& m) {
  auto under = [&](const std::string& root) { return m == root || m.rfind(root + ".", 0) == 0; };
  // math: pure arithmetic (NKIBench's add_rmsnorm_matmul baseline imports it).
  return m == "math" || under("numpy") || under("neuronxcc.nki") || under("nki");
}

const std::set<std::string>& ForbiddenNames() {
  static const std::set<std::string> k = {
      // builtins that reach files, code or arbitrary attributes
      "open", "exec", "eval", "compile", "getattr", "setattr", "delattr", "globals", "locals", "vars", "input",
      "breakpoint", "memoryview",
      // modules for files, processes, networks, clocks and introspection
      "os", "sys", "subprocess", "socket", "shutil", "pathlib", "ctypes", "cffi", "importlib", "builtins", "signal",
      "threading", "multiprocessing", "concurrent", "asyncio", "pickle", "marshal", "shelve", "io", "tempfile",
      "urllib", "http", "requests", "ftplib", "ssl", "select", "mmap", "resource", "inspect", "gc", "time",
      "datetime", "timeit", "perf_counter", "perf_counter_ns", "monotonic", "process_time", "sleep", "environ"};
  return k;
}

const std::set<std::string>& NumpyFileFunctions() {
  static const std::set<std::string> k = {"load", "save", "savez", "savez_compressed", "fromfile", "tofile",
                                          "loadtxt", "savetxt", "genfromtxt", "fromregex", "memmap", "DataSource",
                                          "ctypeslib", "lib", "testing", "f2py", "distutils"};
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
  if (!Tokenize(source, &t, &bad)) {
    v.push_back({bad, "syntax", "unterminated string literal"});
    return v;
  }
  std::set<std::string> numpy_aliases = {"numpy"};
  auto add = [&](int line, const char* rule, const std::string& msg) { v.push_back({line, rule, msg}); };
  // Imports, statement by statement (a statement starts after a newline or ';').
  for (size_t i = 0; i < t.size(); ++i) {
    const bool start = i == 0 || t[i - 1].kind == Tok::kNewline || (t[i - 1].kind == Tok::kOp && t[i - 1].text == ";");
    if (!start || t[i].kind != Tok::kName) continue;
    // NAME ("." NAME)*
    auto dotted = [&](size_t* k) {
      std::string name;
      while (*k < t.size() && t[*k].kind == Tok::kName) {
        name += t[*k].text;
        ++*k;
        if (*k + 1 < t.size() && t[*k].kind == Tok::kOp && t[*k].text == "." && t[*k + 1].kind == Tok::kName) {
          name += ".";
          ++*k;
        } else {
          break;
        }
      }
      return name;
    };
    auto end_of_statement = [&](size_t k) {
      return k >= t.size() || t[k].kind == Tok::kNewline || (t[k].kind == Tok::kOp && t[k].text == ";");
    };
    if (t[i].text == "import") {
      size_t k = i + 1;
      while (!end_of_statement(k)) {
        const int line = t[k].line;
        std::string m = dotted(&k);
        std::string alias = m.substr(0, m.find('.'));
        if (k < t.size() && t[k].kind == Tok::kName && t[k].text == "as" && k + 1 < t.size()) {
          alias = t[k + 1].text;
          k += 2;
        }
        if (m.empty()) { add(line, "import", "malformed import"); break; }
        if (!AllowedModule(m)) add(line, "import", "import of '" + m + "' is not allowed (only numpy, math and the NKI modules)");
        if (m == "numpy") numpy_aliases.insert(alias);
        if (k < t.size() && t[k].kind == Tok::kOp && t[k].text == ",") ++k;
        else if (!end_of_statement(k)) { ++k; }
      }
    } else if (t[i].text == "from") {
      size_t k = i + 1;
      const int line = t[i].line;
      if (k < t.size() && t[k].kind == Tok::kOp && t[k].text == ".") {
        add(line, "import", "relative imports are not allowed");
        continue;
      }
      std::string m = dotted(&k);
      if (k >= t.size() || t[k].text != "import") continue;  // not an import (e.g. "yield from")
      ++k;
      std::vector<std::string> names;
      while (!end_of_statement(k)) {
        if (t[k].kind == Tok::kName && t[k].text != "as") {
          names.push_back(t[k].text);
          if (k + 2 < t.size() && t[k + 1].text == "as") k += 2;
        }
        ++k;
      }
      bool ok = AllowedModule(m);
      if (m == "neuronxcc") {
        ok = !names.empty();
        for (const auto& n : names) ok = ok && n == "nki";
      }
      if (!ok) add(line, "import", "import from '" + m + "' is not allowed (only numpy, math and the NKI modules)");
      if (m == "numpy" || m.rfind("numpy.", 0) == 0) {
        for (const auto& n : names) {
          if (n == "*") add(line, "import", "'from numpy import *' is not allowed");
          else if (NumpyFileFunctions().count(n)) add(line, "forbidden_name", "numpy." + n + " is file or test access");
        }
      }
    }
  }
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& k = t[i];
    if (k.kind == Tok::kString) {
      for (const auto& w : Words(k.text))
        if (ReducedPrecisionWord(w)) {
          add(k.line, "reduced_precision", "'" + w + "' in a string: reduced precision is not allowed (fp32 only)");
          break;
        }
      continue;
    }
    if (k.kind != Tok::kName) continue;
    if (ReducedPrecisionWord(k.text)) {
      add(k.line, "reduced_precision", "'" + k.text + "': reduced precision is not allowed (fp32 only)");
      continue;
    }
    const bool attribute = i > 0 && t[i - 1].kind == Tok::kOp && t[i - 1].text == ".";
    if (k.text.size() > 4 && k.text.rfind("__", 0) == 0 && k.text.compare(k.text.size() - 2, 2, "__") == 0) {
      add(k.line, "forbidden_name", "'" + k.text + "': dunder names are not allowed");
      continue;
    }
    if (ForbiddenNames().count(k.text)) {
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

}  // namespace accelopt::eval::nki
