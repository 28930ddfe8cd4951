#include "evaluators/python/python_source.hpp"

#include <cctype>
#include <cstring>

namespace accelopt::eval::python {
namespace {

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool IsNameChar(char c) { return IsNameStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

}  // namespace

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
    if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      i += 2;
      ++line;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
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
      if (!closed) {
        *bad_line = start;
        return false;
      }
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
  static const std::set<std::string> kWords = {"float16",  "bfloat16", "fp16",   "bf16", "half",
                                               "tfloat32", "tf32",     "float8", "fp8"};
  std::string l;
  for (char c : w) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (kWords.count(l)) return true;
  return l.rfind("float8_", 0) == 0 || l.rfind("fp8_", 0) == 0 || l.rfind("float8e", 0) == 0;
}

std::vector<std::string> Words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (IsNameChar(c))
      cur += c;
    else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

const std::set<std::string>& ForbiddenNames() {
  static const std::set<std::string> k = {
      // builtins that reach files, code or arbitrary attributes
      "open", "exec", "eval", "compile", "getattr", "setattr", "delattr", "globals", "locals", "vars", "input",
      "breakpoint", "memoryview",
      // modules for files, processes, networks, clocks and introspection
      "os", "sys", "subprocess", "socket", "shutil", "pathlib", "ctypes", "cffi", "importlib", "builtins", "signal",
      "threading", "multiprocessing", "concurrent", "asyncio", "pickle", "marshal", "shelve", "io", "tempfile",
      "urllib", "http", "requests", "ftplib", "ssl", "select", "mmap", "resource", "inspect", "gc", "time", "datetime",
      "timeit", "perf_counter", "perf_counter_ns", "monotonic", "process_time", "sleep", "environ"};
  return k;
}

bool IsDunder(const std::string& n) {
  return n.size() > 4 && n.rfind("__", 0) == 0 && n.compare(n.size() - 2, 2, "__") == 0;
}

std::vector<Import> Imports(const std::vector<Token>& t) {
  std::vector<Import> out;
  auto end_of_statement = [&](size_t k) {
    return k >= t.size() || t[k].kind == Tok::kNewline || (t[k].kind == Tok::kOp && t[k].text == ";");
  };
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
  // Statement by statement (a statement starts after a newline or ';').
  for (size_t i = 0; i < t.size(); ++i) {
    const bool start = i == 0 || t[i - 1].kind == Tok::kNewline || (t[i - 1].kind == Tok::kOp && t[i - 1].text == ";");
    if (!start || t[i].kind != Tok::kName) continue;
    if (t[i].text == "import") {
      size_t k = i + 1;
      while (!end_of_statement(k)) {
        Import im;
        im.line = t[k].line;
        im.module = dotted(&k);
        im.alias = im.module.substr(0, im.module.find('.'));
        if (k < t.size() && t[k].kind == Tok::kName && t[k].text == "as" && k + 1 < t.size()) {
          im.alias = t[k + 1].text;
          k += 2;
        }
        const bool malformed = im.module.empty();
        out.push_back(im);
        if (malformed) break;
        if (k < t.size() && t[k].kind == Tok::kOp && t[k].text == ",")
          ++k;
        else if (!end_of_statement(k))
          ++k;
      }
    } else if (t[i].text == "from") {
      size_t k = i + 1;
      Import im;
      im.from = true;
      im.line = t[i].line;
      if (k < t.size() && t[k].kind == Tok::kOp && t[k].text == ".") {
        im.relative = true;
        out.push_back(im);
        continue;
      }
      im.module = dotted(&k);
      if (k >= t.size() || t[k].text != "import") continue;  // not an import (e.g. "yield from")
      ++k;
      while (!end_of_statement(k)) {
        if ((t[k].kind == Tok::kName && t[k].text != "as") || (t[k].kind == Tok::kOp && t[k].text == "*")) {
          im.names.push_back(t[k].text);
          if (k + 2 < t.size() && t[k + 1].text == "as") k += 2;
        }
        ++k;
      }
      out.push_back(im);
    }
  }
  return out;
}

}  // namespace accelopt::eval::python
