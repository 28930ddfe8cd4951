#include "evaluators/nki/nkibench_seed.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace accelopt::eval::nki {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

size_t Indent(const std::string& s) {
  size_t n = 0;
  while (n < s.size() && s[n] == ' ') ++n;
  return n;
}

// Splits on commas outside parentheses and brackets.
std::vector<std::string> SplitTop(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!Trim(cur).empty()) out.push_back(Trim(cur));
  return out;
}

bool StripPrefix(std::string* s, const std::string& p) {
  if (s->compare(0, p.size(), p) != 0) return false;
  s->erase(0, p.size());
  return true;
}
bool StripSuffix(std::string* s, const std::string& p) {
  if (s->size() < p.size() || s->compare(s->size() - p.size(), p.size(), p) != 0) return false;
  s->erase(s->size() - p.size());
  return true;
}

bool ParseNumber(const std::string& s, double* out) {
  const std::string t = Trim(s);
  if (t.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && std::isfinite(*out);
}

struct Line {
  int number;
  std::string text;
};

// Parses one line of the input block into `in` (or the return list).
Status ParseInputLine(const std::string& where, const std::string& line, std::vector<SeedInput>* assigned,
                      std::vector<std::string>* returned) {
  static const std::regex kReturn(R"(return\s*\[(.*)\]\s*)");
  static const std::regex kAssign(R"(([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+))");
  std::smatch m;
  if (std::regex_match(line, m, kReturn)) {
    for (const auto& n : SplitTop(m[1].str())) returned->push_back(n);
    if (returned->empty()) return InvalidArgument(where + ": 'return []' returns no inputs");
    return Status::Ok();
  }
  if (!std::regex_match(line, m, kAssign)) {
    return InvalidArgument(where + ": not an input assignment or the return list: '" + line + "'");
  }
  SeedInput in;
  in.name = m[1].str();
  std::string rhs = Trim(m[2].str());
  const std::string what = where + ": input '" + in.name + "'";
  if (ParseNumber(rhs, &in.value)) {
    in.scalar = true;
    assigned->push_back(in);
    return Status::Ok();
  }
  if (!StripSuffix(&rhs, ".astype(np.float32)")) {
    return InvalidArgument(what + ": only scalars and .astype(np.float32) arrays are understood (got '" + rhs + "')");
  }
  bool abs = false;
  if (StripPrefix(&rhs, "np.abs(")) {
    if (!StripSuffix(&rhs, ")")) return InvalidArgument(what + ": unbalanced np.abs(");
    abs = true;
  }
  std::string kind;
  if (StripPrefix(&rhs, "np.random.normal("))
    kind = "normal";
  else if (StripPrefix(&rhs, "np.random.uniform("))
    kind = "uniform";
  else
    return InvalidArgument(what + ": only np.random.normal and np.random.uniform are understood (got '" + rhs + "')");
  if (!StripSuffix(&rhs, ")")) return InvalidArgument(what + ": unbalanced np.random." + kind + "(");
  const std::vector<std::string> positional = kind == "normal" ? std::vector<std::string>{"loc", "scale", "size"}
                                                               : std::vector<std::string>{"low", "high", "size"};
  std::map<std::string, std::string> args;
  auto parts = SplitTop(rhs);
  for (size_t i = 0; i < parts.size(); ++i) {
    auto eq = parts[i].find('=');
    std::string key, val;
    if (eq == std::string::npos) {
      if (i >= positional.size()) return InvalidArgument(what + ": too many arguments");
      key = positional[i];
      val = parts[i];
    } else {
      key = Trim(parts[i].substr(0, eq));
      val = Trim(parts[i].substr(eq + 1));
    }
    if (std::find(positional.begin(), positional.end(), key) == positional.end()) {
      return InvalidArgument(what + ": unknown argument '" + key + "' of np.random." + kind);
    }
    if (!args.emplace(key, val).second) return InvalidArgument(what + ": argument '" + key + "' given twice");
  }
  if (!args.count("size")) return InvalidArgument(what + ": no size=(...)");
  std::string size = args["size"];
  if (!StripPrefix(&size, "(") || !StripSuffix(&size, ")")) {
    return InvalidArgument(what + ": size must be a tuple '(...)' (got '" + size + "')");
  }
  in.shape = SplitTop(size);
  if (in.shape.empty()) return InvalidArgument(what + ": empty size");
  double a = 0, b = 1;
  const std::string ka = positional[0], kb = positional[1];
  if (args.count(ka) && !ParseNumber(args[ka], &a)) return InvalidArgument(what + ": " + ka + " is not a number");
  if (args.count(kb) && !ParseNumber(args[kb], &b)) return InvalidArgument(what + ": " + kb + " is not a number");
  if (abs) {
    if (kind != "normal" || a != 0) {
      return InvalidArgument(what + ": np.abs(...) is understood around np.random.normal with loc=0 only");
    }
    in.distribution.kind = "abs_normal";
    in.distribution.a = b;  // std
    in.distribution.b = 0;  // offset
  } else {
    in.distribution.kind = kind;
    in.distribution.a = a;
    in.distribution.b = b;
  }
  if (kind == "normal" && b < 0) return InvalidArgument(what + ": negative scale");
  if (kind == "uniform" && b < a) return InvalidArgument(what + ": high < low");
  assigned->push_back(in);
  return Status::Ok();
}

}  // namespace

Result<Seed> ParseSeedYaml(const std::string& text, const std::string& file) {
  std::vector<Line> lines;
  {
    std::istringstream is(text);
    std::string l;
    int n = 0;
    while (std::getline(is, l)) {
      ++n;
      if (!l.empty() && l.back() == '\r') l.pop_back();
      if (l.find('\t') != std::string::npos) return InvalidArgument(file + ":" + std::to_string(n) + ": tab in YAML");
      lines.push_back({n, l});
    }
  }
  Seed seed;
  std::map<std::string, int> block_line;  // key -> first line of its block
  std::map<std::string, std::string> blocks;
  std::set<std::string> seen;
  for (size_t i = 0; i < lines.size();) {
    const Line& ln = lines[i];
    const std::string where = file + ":" + std::to_string(ln.number);
    std::string t = Trim(ln.text);
    if (t.empty() || t[0] == '#') {
      ++i;
      continue;
    }
    if (Indent(ln.text) != 0) return InvalidArgument(where + ": unexpected indented line '" + t + "'");
    auto colon = t.find(':');
    if (colon == std::string::npos) return InvalidArgument(where + ": expected 'key: value'");
    const std::string key = Trim(t.substr(0, colon)), value = Trim(t.substr(colon + 1));
    if (!seen.insert(key).second) return InvalidArgument(where + ": key '" + key + "' appears twice");
    if (key != "test_name" && key != "parameters" && key != "input" && key != "impl" && key != "comments") {
      return InvalidArgument(where + ": unknown key '" + key +
                             "' (expected test_name, parameters, input, impl, comments)");
    }
    ++i;
    if (value == "|") {
      // A literal block: the following lines that are indented or empty.
      std::vector<std::string> body;
      size_t indent = std::string::npos;
      block_line[key] = ln.number + 1;
      while (i < lines.size() && (Trim(lines[i].text).empty() || Indent(lines[i].text) > 0)) {
        if (!Trim(lines[i].text).empty()) indent = std::min(indent, Indent(lines[i].text));
        body.push_back(lines[i].text);
        ++i;
      }
      std::string joined;
      for (const auto& b : body)
        joined += (b.size() > indent && indent != std::string::npos ? b.substr(indent) : Trim(b)) + "\n";
      blocks[key] = joined;
    } else if (value.empty()) {
      // A list: "- item" lines (at any indent).
      std::vector<std::string> items;
      while (i < lines.size() && Trim(lines[i].text).rfind("- ", 0) == 0) {
        items.push_back(Trim(Trim(lines[i].text).substr(2)));
        ++i;
      }
      if (key != "parameters") return InvalidArgument(where + ": '" + key + "' must not be a list");
      seed.parameters = items;
    } else {
      if (key != "test_name") return InvalidArgument(where + ": '" + key + "' must be a block ('" + key + ": |')");
      seed.test_name = value;
    }
  }
  if (seed.test_name.empty()) return InvalidArgument(file + ": missing test_name");
  if (seed.parameters.empty()) return InvalidArgument(file + ": missing parameters (a list of dim names)");
  if (!blocks.count("input")) return InvalidArgument(file + ": missing the 'input: |' block");
  seed.impl = blocks["impl"];
  seed.comments = blocks["comments"];

  std::vector<SeedInput> assigned;
  std::vector<std::string> returned;
  {
    std::istringstream is(blocks["input"]);
    std::string l;
    int n = block_line["input"] - 1;
    while (std::getline(is, l)) {
      ++n;
      const std::string t = Trim(l);
      if (t.empty() || t[0] == '#') continue;
      if (!returned.empty()) return InvalidArgument(file + ":" + std::to_string(n) + ": a line after the return");
      ACCELOPT_RETURN_IF_ERROR(ParseInputLine(file + ":" + std::to_string(n), t, &assigned, &returned));
    }
  }
  if (returned.empty()) return InvalidArgument(file + ": the input block has no 'return [...]'");
  for (const auto& name : returned) {
    const SeedInput* found = nullptr;
    for (const auto& a : assigned)
      if (a.name == name) found = &a;
    if (!found) return InvalidArgument(file + ": input block returns '" + name + "', which it never assigns");
    for (const auto& prev : seed.inputs)
      if (prev.name == name) return InvalidArgument(file + ": input block returns '" + name + "' twice");
    seed.inputs.push_back(*found);
  }
  return seed;
}

}  // namespace accelopt::eval::nki
