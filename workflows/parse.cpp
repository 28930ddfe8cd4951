#include "workflows/parse.hpp"
#include "base/text.hpp"
#include "workflows/problem_json.hpp"
#include "workflows/backend_traits.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iterator>

namespace accelopt::workflows {

namespace {

// Splits into lines without their '\n' (a trailing '\r' is dropped too).
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

// A fence line: optional indentation, then ``` or ~~~ (3 or more).
bool IsFence(std::string_view line, std::string* fence, std::string* info) {
  std::string_view t = line;
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  if (t.size() < 3) return false;
  const char c = t.front();
  if (c != '`' && c != '~') return false;
  size_t n = 0;
  while (n < t.size() && t[n] == c) ++n;
  if (n < 3) return false;
  *fence = std::string(n, c);
  *info = std::string(TrimView(t.substr(n)));
  return true;
}

// Removes // and /* */ comments and the contents of string/char literals, so
// that a name inside a comment or string does not count as a definition.
std::string StripCommentsAndLiterals(std::string_view code) {
  std::string out;
  out.reserve(code.size());
  size_t i = 0;
  while (i < code.size()) {
    if (code.compare(i, 2, "//") == 0) {
      while (i < code.size() && code[i] != '\n') ++i;
    } else if (code.compare(i, 2, "/*") == 0) {
      size_t end = code.find("*/", i + 2);
      i = end == std::string_view::npos ? code.size() : end + 2;
      out += ' ';
    } else if (code[i] == '"' || code[i] == '\'') {
      const char q = code[i];
      out += q;
      ++i;
      while (i < code.size() && code[i] != q && code[i] != '\n') {
        if (code[i] == '\\') ++i;
        ++i;
      }
      out += q;  // keep the quotes: `extern "C"` becomes `extern ""`
      ++i;
    } else {
      out += code[i++];
    }
  }
  return out;
}

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string StripMarkdownLine(std::string_view line) {
  std::string_view t = TrimView(line);
  while (!t.empty() && (t.front() == '#' || t.front() == '*' || t.front() == '_' || t.front() == '>' ||
                        t.front() == '-' || t.front() == ' ')) {
    t.remove_prefix(1);
  }
  t = TrimView(t);
  for (std::string_view prefix : {"title:", "plan:", "step 1:", "step:"}) {
    if (Lower(t.substr(0, prefix.size())) == prefix) {
      t = TrimView(t.substr(prefix.size()));
      break;
    }
  }
  while (!t.empty() && (t.front() == '*' || t.front() == '_' || t.front() == ' ')) {
    t.remove_prefix(1);
  }
  while (!t.empty() && (t.back() == '*' || t.back() == '_' || t.back() == '#')) t.remove_suffix(1);
  return std::string(TrimView(t));
}

}  // namespace

std::vector<FencedBlock> FencedBlocks(std::string_view text) {
  std::vector<FencedBlock> blocks;
  std::optional<FencedBlock> open;
  std::string open_fence;
  for (std::string_view line : Lines(text)) {
    std::string fence, info;
    if (!open) {
      if (IsFence(line, &fence, &info)) {
        open = FencedBlock{info, "", false};
        open_fence = fence;
      }
      continue;
    }
    if (IsFence(line, &fence, &info) && info.empty() && fence[0] == open_fence[0] &&
        fence.size() >= open_fence.size()) {
      open->terminated = true;
      blocks.push_back(std::move(*open));
      open.reset();
      continue;
    }
    open->body.append(line);
    open->body += '\n';
  }
  if (open) blocks.push_back(std::move(*open));
  return blocks;
}

bool DefinesExternCFunction(std::string_view code, const std::string& name) {
  if (name.empty()) return false;
  const std::string s = StripCommentsAndLiterals(code);
  if (s.find("extern \"\"") == std::string::npos) return false;  // extern "C" (literal emptied)
  size_t pos = 0;
  while ((pos = s.find(name, pos)) != std::string::npos) {
    const size_t after = pos + name.size();
    const bool starts = pos == 0 || !IsIdentChar(s[pos - 1]);
    pos = after;
    if (!starts || (after < s.size() && IsIdentChar(s[after]))) continue;
    size_t i = after;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i >= s.size() || s[i] != '(') continue;
    int depth = 0;
    for (; i < s.size(); ++i) {
      if (s[i] == '(') ++depth;
      if (s[i] == ')' && --depth == 0) break;
    }
    if (i >= s.size()) return false;
    ++i;
    // Skip qualifiers between ')' and '{' (noexcept, attributes, ...).
    while (i < s.size() && s[i] != '{' && s[i] != ';' && s[i] != '(' && s[i] != ')') ++i;
    if (i < s.size() && s[i] == '{') return true;
  }
  return false;
}

namespace {

// Python source with comments removed and every string literal (quotes,
// prefixes' quotes, triple-quoted docstrings, escapes) reduced to "" so
// that nothing inside one can look like code. Newlines outside literals are
// kept; a triple-quoted literal's own newlines go with it.
std::string StripPythonCommentsAndStrings(std::string_view code) {
  std::string out;
  out.reserve(code.size());
  size_t i = 0;
  const size_t n = code.size();
  while (i < n) {
    const char c = code[i];
    if (c == '#') {
      while (i < n && code[i] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      const bool triple = i + 2 < n && code[i + 1] == c && code[i + 2] == c;
      const size_t qlen = triple ? 3 : 1;
      i += qlen;
      while (i < n) {
        if (code[i] == '\\') {
          i += 2;
          continue;
        }
        if (!triple && code[i] == '\n') break;  // unterminated: ends at the line
        if (code[i] == c && (!triple || code.compare(i, 3, std::string(3, c)) == 0)) {
          i += qlen;
          break;
        }
        ++i;
      }
      out += "\"\"";
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace

bool DefinesPythonFunction(std::string_view code, const std::string& name) {
  if (name.empty()) return false;
  const std::string s = StripPythonCommentsAndStrings(code);
  int depth = 0;           // open brackets: a line inside them is no statement
  bool continued = false;  // the previous physical line ended with a backslash
  for (std::string_view line : Lines(s)) {
    const bool statement_start = depth == 0 && !continued;
    if (statement_start && line.compare(0, 3, "def") == 0 && line.size() > 3 && (line[3] == ' ' || line[3] == '\t')) {
      std::string_view t = line.substr(3);
      while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
      if (t.compare(0, name.size(), name) == 0) {
        t.remove_prefix(name.size());
        while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
        if (!t.empty() && t.front() == '(') return true;
      }
    }
    for (char c : line) {
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    }
    std::string_view r = line;
    while (!r.empty() && (r.back() == ' ' || r.back() == '\t')) r.remove_suffix(1);
    continued = !r.empty() && r.back() == '\\';
  }
  return false;
}

bool DefinesKernelFunction(std::string_view code, const std::string& name, const std::string& backend) {
  if (TraitsOf(backend).python_kernel) return DefinesPythonFunction(code, name);
  return DefinesExternCFunction(code, name);
}

std::string KernelFunctionDescription(const std::string& name, const std::string& backend) {
  if (TraitsOf(backend).python_kernel) return "def " + name + "(...)";
  return "extern \"C\" " + name + "(...)";
}

std::string StripReasoning(std::string_view reply, bool* unclosed) {
  if (unclosed) *unclosed = false;
  static const char* const kTags[] = {"think", "thinking", "reasoning"};
  std::string out;
  size_t i = 0;
  while (i < reply.size()) {
    // The earliest opening tag from here.
    size_t open = std::string_view::npos;
    std::string close;
    size_t open_len = 0;
    for (const char* tag : kTags) {
      const std::string o = std::string("<") + tag + ">";
      const size_t at = reply.find(o, i);
      if (at != std::string_view::npos && (open == std::string_view::npos || at < open)) {
        open = at;
        open_len = o.size();
        close = std::string("</") + tag + ">";
      }
    }
    if (open == std::string_view::npos) {
      out.append(reply.substr(i));
      break;
    }
    out.append(reply.substr(i, open - i));
    const size_t end = reply.find(close, open + open_len);
    if (end == std::string_view::npos) {
      if (unclosed) *unclosed = true;
      break;
    }
    i = end + close.size();
  }
  // Some templates open the block in the prompt, so the reply holds only
  // the closing tag: everything before a leading-part "</think>" is reasoning.
  for (const char* tag : kTags) {
    const std::string close = std::string("</") + tag + ">";
    const size_t at = out.find(close);
    if (at != std::string::npos) out.erase(0, at + close.size());
  }
  return out;
}

bool LooksLikeRefusal(std::string_view text) {
  const std::string head = Lower(TrimView(text.substr(0, std::min<size_t>(text.size(), 300))));
  for (const char* p : {"i can't", "i cannot", "i can\xe2\x80\x99t", "i'm sorry", "i am sorry", "i'm unable",
                        "i am unable", "i won't", "i will not", "as an ai", "sorry, but"}) {
    if (head.find(p) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::string> ExternCFunctionNames(std::string_view code) {
  // Every identifier followed by a parameter list and a body, in a source
  // that has extern "C": close enough to name what the model wrote instead.
  std::vector<std::string> names;
  const std::string s = StripCommentsAndLiterals(code);
  if (s.find("extern \"\"") == std::string::npos) return names;
  static const char* const kNotNames[] = {"if", "for", "while", "switch", "return", "sizeof", "catch", "defined"};
  int looked = 0;
  for (size_t i = 0; i < s.size();) {
    if (!IsIdentChar(s[i]) || (i > 0 && IsIdentChar(s[i - 1]))) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < s.size() && IsIdentChar(s[e])) ++e;
    const std::string name = s.substr(i, e - i);
    i = e;
    if (std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    // Only a name followed by '(' can be a definition; at most 64 looked at
    // (each look is a pass over the code: a long reply stays cheap).
    size_t j = e;
    while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j >= s.size() || s[j] != '(') continue;
    if (++looked > 64) break;
    if (std::find(std::begin(kNotNames), std::end(kNotNames), name) != std::end(kNotNames)) continue;
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    if (DefinesExternCFunction(code, name)) names.push_back(name);
    if (names.size() >= 5) break;
  }
  return names;
}

namespace {

// The first line of a fence-less reply that starts code, or npos.
size_t CodeStart(std::string_view text, const std::string& backend) {
  const bool python = TraitsOf(backend).python_kernel;
  size_t start = 0;
  for (std::string_view line : Lines(text)) {
    const std::string_view t = TrimView(line);
    static const char* const kC[] = {"#include", "#pragma", "#define", "extern",    "static",
                                     "template", "typedef", "using ",  "namespace", "//",
                                     "/*",       "void ",   "float ",  "int ",      "struct "};
    static const char* const kPy[] = {"import ", "from ", "def ", "@", "#"};
    bool code = false;
    if (python) {
      for (const char* p : kPy) code = code || t.compare(0, std::strlen(p), p) == 0;
    } else {
      for (const char* p : kC) code = code || t.compare(0, std::strlen(p), p) == 0;
    }
    if (code) return start;
    start += line.size() + 1;
  }
  return std::string_view::npos;
}

}  // namespace

ParsedCode ParseExecutorReply(std::string_view raw_reply, const std::string& function, const std::string& backend,
                              bool first_block_only) {
  ParsedCode out;
  bool unclosed_reasoning = false;
  const std::string reply = StripReasoning(raw_reply, &unclosed_reasoning);
  std::vector<FencedBlock> blocks = FencedBlocks(reply);
  if (blocks.empty()) {
    if (unclosed_reasoning) {
      out.failure = kReasoningOnly;
      out.detail = "the reply ended inside its reasoning block (<think> not closed)";
      return out;
    }
    if (!first_block_only && DefinesKernelFunction(reply, function, backend)) {
      const size_t at = CodeStart(reply, backend);
      std::string code = at == std::string_view::npos
                             ? std::string()
                             : std::string(TrimView(std::string_view(reply).substr(at))) + "\n";
      if (!code.empty() && DefinesKernelFunction(code, function, backend)) {
        out.code = std::move(code);
        out.detail = "no fenced block: the reply's text taken as code from its first line of code";
        return out;
      }
    }
    if (LooksLikeRefusal(reply)) {
      out.failure = kRefused;
      out.detail = "the reply declines the task: " + std::string(TrimView(reply.substr(0, 160)));
      return out;
    }
    out.failure = kNoCodeBlock;
    out.detail = TrimView(reply).empty() ? "the reply is empty once its reasoning is removed"
                                         : "the reply has no fenced code block";
    return out;
  }
  size_t pick = 0;
  bool found = false;
  if (!first_block_only) {
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (blocks[i].terminated && DefinesKernelFunction(blocks[i].body, function, backend)) {
        pick = i;
        found = true;
        break;
      }
    }
  }
  if (found) {
    out.code = std::move(blocks[pick].body);
    if (pick > 0) {
      out.detail = "code block " + std::to_string(pick + 1) + " of " + std::to_string(blocks.size()) +
                   " (the first that defines " + KernelFunctionDescription(function, backend) + ")";
    }
    return out;
  }
  // None defines it: an unclosed block means the reply was cut off.
  const FencedBlock& last = blocks.back();
  if (!first_block_only && !last.terminated) {
    out.code = std::move(blocks.back().body);
    out.failure = kTruncatedCode;
    out.detail = blocks.size() == 1 ? "the first code block is not closed (reply cut off?)"
                                    : "the last code block is not closed (reply cut off?)";
    return out;
  }
  out.code = std::move(blocks.front().body);
  if (!blocks.front().terminated) {
    out.failure = kTruncatedCode;
    out.detail = "the first code block is not closed (reply cut off?)";
    return out;
  }
  if (!DefinesKernelFunction(out.code, function, backend)) {
    out.failure = kMissingFunction;
    out.detail = "the code does not define " + KernelFunctionDescription(function, backend);
    if (!TraitsOf(backend).python_kernel) {
      std::vector<std::string> names;
      blocks.front().body = out.code;  // moved from above
      for (const FencedBlock& b : blocks) {
        for (std::string& n : ExternCFunctionNames(b.body)) {
          if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(std::move(n));
        }
      }
      if (!names.empty()) {
        out.detail += "; it defines ";
        for (size_t i = 0; i < names.size(); ++i) out.detail += (i ? ", " : "") + names[i];
        out.detail += " instead";
      }
    }
  }
  return out;
}

Result<Plan> ParsePlannerReply(std::string_view raw_reply) {
  bool unclosed = false;
  const std::string reply = StripReasoning(raw_reply, &unclosed);
  std::vector<std::string_view> lines = Lines(reply);
  size_t i = 0;
  Plan plan;
  for (; i < lines.size(); ++i) {
    plan.title = StripMarkdownLine(lines[i]);
    if (!plan.title.empty()) break;
  }
  if (plan.title.empty()) {
    return InvalidArgument(unclosed ? "the planner's reply ended inside its reasoning block"
                                    : "the planner's reply is empty");
  }
  std::string rest;
  for (++i; i < lines.size(); ++i) {
    rest.append(lines[i]);
    rest += '\n';
  }
  plan.description = std::string(TrimView(rest));
  return plan;
}

std::vector<int> ExtractUsedExperiences(std::string* reply) {
  std::vector<int> used;
  std::vector<std::string_view> kept;
  static const std::string kKey = "used experiences";
  for (std::string_view line : Lines(*reply)) {
    std::string stripped = Lower(TrimView(line));
    size_t at = 0;
    while (at < stripped.size() && (stripped[at] == '*' || stripped[at] == '_' || stripped[at] == '-' ||
                                    stripped[at] == '#' || stripped[at] == ' ')) {
      ++at;
    }
    if (stripped.compare(at, kKey.size(), kKey) != 0) {
      kept.push_back(line);
      continue;
    }
    const size_t colon = stripped.find(':', at + kKey.size());
    if (colon == std::string::npos) {
      kept.push_back(line);
      continue;
    }
    for (size_t k = colon + 1; k < stripped.size();) {
      if (!std::isdigit(static_cast<unsigned char>(stripped[k]))) {
        ++k;
        continue;
      }
      int v = 0;
      while (k < stripped.size() && std::isdigit(static_cast<unsigned char>(stripped[k]))) {
        if (v < 1000000) v = v * 10 + (stripped[k] - '0');
        ++k;
      }
      used.push_back(v);
    }
  }
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  std::string out;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) out += '\n';
    out.append(kept[i]);
  }
  *reply = std::move(out);
  return used;
}

Result<Summary> ParseSummarizerReply(std::string_view raw_reply, bool published_rule) {
  bool unclosed = false;
  const std::string reply = StripReasoning(raw_reply, &unclosed);
  std::string_view text = TrimView(reply);
  if (text.empty()) {
    return InvalidArgument(unclosed ? "the summarizer's reply ended inside its reasoning block"
                                    : "the summarizer's reply is empty");
  }
  Summary s;
  const std::string lower = Lower(text);
  std::vector<FencedBlock> blocks = FencedBlocks(text);
  const bool no_optimization = published_rule
                                   ? text.find("No optimization found") != std::string_view::npos
                                   : lower.find("no optimization found") != std::string::npos && blocks.size() < 2;
  if (no_optimization) {
    s.no_optimization = true;
    s.title = "No optimization found";
    return s;
  }
  // Prose = everything before the first fence line.
  std::string prose;
  for (std::string_view line : Lines(text)) {
    std::string fence, info;
    if (IsFence(line, &fence, &info)) break;
    prose.append(line);
    prose += '\n';
  }
  const size_t bold = prose.find("**");
  const size_t bold_end = bold == std::string::npos ? bold : prose.find("**", bold + 2);
  if (bold_end != std::string::npos && bold_end > bold + 2) {
    s.title = std::string(TrimView(std::string_view(prose).substr(bold + 2, bold_end - bold - 2)));
    std::string before = prose.substr(0, bold);
    std::string after = prose.substr(bold_end + 2);
    s.description = std::string(TrimView(std::string(TrimView(before)) + "\n" + after));
  } else {
    std::vector<std::string_view> lines = Lines(prose);
    size_t i = 0;
    for (; i < lines.size(); ++i) {
      s.title = StripMarkdownLine(lines[i]);
      if (!s.title.empty()) break;
    }
    std::string rest;
    for (++i; i < lines.size(); ++i) {
      rest.append(lines[i]);
      rest += '\n';
    }
    s.description = std::string(TrimView(rest));
  }
  if (!blocks.empty()) s.slow_snippet = blocks[0].body;
  if (blocks.size() > 1) s.fast_snippet = blocks[1].body;
  if (s.title.empty()) s.title = "Untitled optimization";
  return s;
}

}  // namespace accelopt::workflows
