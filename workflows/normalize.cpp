#include "workflows/normalize.hpp"

#include <cctype>

#include "base/sha256.hpp"
#include "workflows/problem_json.hpp"
#include "workflows/backend_traits.hpp"

namespace accelopt::workflows {

namespace {

bool IsWord(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string NormalizeCode(std::string_view code) {
  std::string out;
  out.reserve(code.size());
  bool pending_space = false, pending_newline = false;
  bool in_directive = false;  // the current logical line starts with '#'
  bool line_start = true;     // nothing but whitespace so far on this line
  auto flush = [&](char next) {
    if (!out.empty()) {
      if (pending_newline) {
        out += '\n';
      } else if (pending_space && IsWord(out.back()) && IsWord(next)) {
        out += ' ';
      }
    }
    pending_space = pending_newline = false;
  };
  size_t i = 0;
  const size_t n = code.size();
  while (i < n) {
    const char c = code[i];
    if (c == '/' && i + 1 < n && code[i + 1] == '/') {
      while (i < n && code[i] != '\n') ++i;
      continue;  // the newline is handled as whitespace
    }
    if (c == '/' && i + 1 < n && code[i + 1] == '*') {
      const size_t end = code.find("*/", i + 2);
      i = end == std::string_view::npos ? n : end + 2;
      pending_space = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (c == '\n') {
        // A backslash-continued directive stays one logical line.
        const bool continued = !out.empty() && out.back() == '\\';
        if (in_directive && !continued) {
          pending_newline = true;
          in_directive = false;
        }
        line_start = true;
      }
      pending_space = true;
      ++i;
      continue;
    }
    flush(c);
    if (line_start && c == '#') in_directive = true;
    line_start = false;
    if (c == '"' || c == '\'') {
      // Copy the literal verbatim up to its closing quote.
      out += c;
      ++i;
      while (i < n && code[i] != c && code[i] != '\n') {
        if (code[i] == '\\' && i + 1 < n) out += code[i++];
        out += code[i++];
      }
      if (i < n && code[i] == c) out += code[i++];
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

std::string NormalizedCodeSha256(std::string_view code) { return Sha256Hex(NormalizeCode(code)); }

std::string NormalizePythonCode(std::string_view code) {
  std::string out, line;
  char quote = 0;                // the open literal's quote character, 0 outside one
  bool triple = false;           // the open literal is triple-quoted
  bool line_in_literal = false;  // the current line began inside a literal
  auto end_line = [&]() {
    if (!line_in_literal) {
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
      if (line.empty()) return;
    }
    out += line;
    out += '\n';
    line.clear();
  };
  const size_t n = code.size();
  for (size_t i = 0; i < n; ++i) {
    const char c = code[i];
    if (quote) {
      line += c;
      if (c == '\\' && i + 1 < n) {
        line += code[++i];
        if (code[i] == '\n') {  // an escaped newline inside the literal
          out += line;
          line.clear();
          line_in_literal = true;
        }
        continue;
      }
      if (c == '\n') {
        if (!triple) {  // unterminated single-quoted literal: ends at the line
          quote = 0;
          line.pop_back();
          end_line();
          line_in_literal = false;
          continue;
        }
        out += line;
        line.clear();
        line_in_literal = true;
        continue;
      }
      if (c == quote && (!triple || code.compare(i, 3, std::string(3, quote)) == 0)) {
        if (triple) {
          line += code[i + 1];
          line += code[i + 2];
          i += 2;
        }
        quote = 0;
      }
      continue;
    }
    if (c == '#') {
      while (i + 1 < n && code[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '\n') {
      end_line();
      line_in_literal = false;
      continue;
    }
    line += c;
    if (c == '"' || c == '\'') {
      quote = c;
      triple = code.compare(i, 3, std::string(3, c)) == 0;
      if (triple) {
        line += code[i + 1];
        line += code[i + 2];
        i += 2;
      }
    }
  }
  end_line();
  return out;
}

std::string NormalizedKernelSha256(std::string_view code, const std::string& backend) {
  return Sha256Hex(TraitsOf(backend).python_kernel ? NormalizePythonCode(code) : NormalizeCode(code));
}

}  // namespace accelopt::workflows
