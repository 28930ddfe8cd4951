#include "evaluators/nki/migrate.hpp"

#include <regex>
#include <sstream>

#include "evaluators/python/python_source.hpp"

namespace accelopt::eval::nki {
namespace {

using python::Tok;
using python::Token;

constexpr const char* kMigAnnouncement = "2.34 announcement, 'What you must do'";
constexpr const char* kMigGuide = "NKI Migration Guide 0.1.0 -> 0.2.0";

std::vector<std::string> MigLines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

std::string MigTrim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") + 1 - b);
}

// The top-level comma-separated arguments of `args` (brackets and strings
// respected); empty on an unbalanced text.
std::vector<std::string> MigSplitArgs(const std::string& args) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  std::string cur;
  for (char ch : args) {
    if (quote) {
      if (ch == quote) quote = 0;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    } else if (ch == '(' || ch == '[' || ch == '{') {
      ++depth;
    } else if (ch == ')' || ch == ']' || ch == '}') {
      if (--depth < 0) return {};
    } else if (ch == ',' && depth == 0) {
      out.push_back(MigTrim(cur));
      cur.clear();
      continue;
    }
    cur += ch;
  }
  if (depth != 0 || quote) return {};
  if (!MigTrim(cur).empty()) out.push_back(MigTrim(cur));
  return out;
}

Status MigRefuse(int line, const std::string& what, const std::string& section) {
  return Status(Code::kFailedPrecondition, "line " + std::to_string(line) + ": " + what +
                                               " cannot be migrated to the nki package mechanically (" + kMigGuide +
                                               ", '" + section + "')");
}

// The import lines rewritten in place (the announcement's table); the
// aliases bound to nki.language and nki.isa.
Status MigRewriteImports(const std::vector<Token>& t, std::vector<std::string>* lines, Migration* m, std::string* nl,
                         std::string* nisa, int* last_import_line) {
  static const std::regex kImport(R"(^(\s*)import\s+neuronxcc\.nki(\.language|\.isa)?(\s+as\s+(\w+))?\s*$)");
  static const std::regex kFromNeuronxcc(R"(^(\s*)from\s+neuronxcc\s+import\s+nki(\s+as\s+(\w+))?\s*$)");
  static const std::regex kFromNki(R"(^(\s*)from\s+neuronxcc\.nki\s+import\s+(.*)$)");
  static const std::regex kFromItem(R"(^(language|isa)(\s+as\s+(\w+))?$)");
  for (const python::Import& im : python::Imports(t)) {
    *last_import_line = std::max(*last_import_line, im.line);
    for (const std::string& n : im.names)
      if (im.from && im.module == "nki" && n == "isa") *nisa = "isa";
    if (!im.from && (im.module == "nki.isa")) *nisa = im.alias;
    if (!im.from && (im.module == "nki.language")) *nl = im.alias;
    const bool under = im.module == "neuronxcc" || im.module.rfind("neuronxcc.", 0) == 0;
    if (!under) continue;
    if (im.line < 1 || im.line > static_cast<int>(lines->size())) return InvalidArgument("an import past the end");
    std::string& text = (*lines)[static_cast<size_t>(im.line - 1)];
    const std::string before = MigTrim(text);
    std::smatch mt;
    if (std::regex_match(text, mt, kImport)) {
      const std::string sub = mt[2].str();
      const std::string alias = mt[4].str();
      const bool plain = alias.empty() || (sub.empty() && alias == "nki");
      text = mt[1].str() + "import nki" + sub + (plain ? "" : " as " + alias);
      if (sub == ".language") *nl = alias.empty() ? "nki.language" : alias;
      if (sub == ".isa") *nisa = alias.empty() ? "nki.isa" : alias;
    } else if (std::regex_match(text, mt, kFromNeuronxcc)) {
      text = mt[1].str() + "import nki" + (mt[3].str().empty() || mt[3].str() == "nki" ? "" : " as " + mt[3].str());
    } else if (std::regex_match(text, mt, kFromNki)) {
      std::string items;
      for (const std::string& item : MigSplitArgs(mt[2].str())) {
        std::smatch it;
        if (!std::regex_match(item, it, kFromItem)) {
          return Status(Code::kFailedPrecondition, "line " + std::to_string(im.line) + ": '" + before +
                                                       "' imports what the " + kMigAnnouncement +
                                                       " table does not map");
        }
        const std::string bound = it[3].str().empty() ? it[1].str() : it[3].str();
        if (it[1] == "language") *nl = bound;
        if (it[1] == "isa") *nisa = bound;
        items += (items.empty() ? "" : ", ") + item;
      }
      text = mt[1].str() + "from nki import " + items;
    } else {
      return Status(Code::kFailedPrecondition, "line " + std::to_string(im.line) + ": '" + before +
                                                   "': only neuronxcc.nki, neuronxcc.nki.language and "
                                                   "neuronxcc.nki.isa have a documented replacement (" +
                                                   kMigAnnouncement + "), one import per line");
    }
    m->rewrites.push_back("line " + std::to_string(im.line) + ": " + before + " -> " + MigTrim(text) + " (" +
                          kMigAnnouncement + ")");
  }
  return Status::Ok();
}

// What the guide says has no direct equivalent.
Status MigFindRemoved(const std::vector<Token>& t) {
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& k = t[i];
    if (k.kind != Tok::kName) continue;
    const bool attr = i > 0 && t[i - 1].kind == Tok::kOp && t[i - 1].text == ".";
    const bool kwarg = i > 0 && i + 1 < t.size() && t[i - 1].kind == Tok::kOp &&
                       (t[i - 1].text == "(" || t[i - 1].text == ",") && t[i + 1].text == "=";
    if (attr && (k.text == "arange" || k.text == "mgrid"))
      return MigRefuse(k.line, "'." + k.text + "'", "Update indexing syntax for mgrid and arange");
    if (kwarg && k.text == "mask") return MigRefuse(k.line, "the mask parameter", "Deprecation of masking");
    if (k.text == "par_dim") return MigRefuse(k.line, "a block dimension (par_dim)", "Translation of Block Dimensions");
    if (kwarg && k.text == "mode") {
      for (size_t j = i; j-- > 0 && t[j].line == k.line;)
        if (t[j].text == "jit")
          return MigRefuse(k.line, "nki.jit(mode=...)", "Remove nki.jit decorator on sub-kernels");
    }
  }
  return Status::Ok();
}

}  // namespace

bool UsesNeuronxccNki(const std::string& source) {
  std::vector<Token> t;
  int bad = 0;
  if (!python::Tokenize(source, &t, &bad)) return false;
  for (const python::Import& im : python::Imports(t))
    if (im.module == "neuronxcc" || im.module.rfind("neuronxcc.", 0) == 0) return true;
  return false;
}

Result<Migration> MigrateBeta1ToNki(const std::string& source) {
  std::vector<Token> t;
  int bad = 0;
  if (!python::Tokenize(source, &t, &bad))
    return Status(Code::kFailedPrecondition, "line " + std::to_string(bad) + ": an unterminated string");
  ACCELOPT_RETURN_IF_ERROR(MigFindRemoved(t));
  Migration m;
  std::vector<std::string> lines = MigLines(source);
  std::string nl, nisa;
  int last_import = 0;
  ACCELOPT_RETURN_IF_ERROR(MigRewriteImports(t, &lines, &m, &nl, &nisa, &last_import));
  // nl.load / nl.store: statement forms only.
  bool need_isa = false;
  const std::string isa = nisa.empty() ? "nisa" : nisa;
  if (!nl.empty()) {
    const std::string q = std::regex_replace(nl, std::regex(R"(\.)"), R"(\.)");
    const std::regex store(R"(^(\s*))" + q + R"(\.store\((.*)\)\s*$)");
    const std::regex load(R"(^(\s*)(\w+)\s*=\s*)" + q + R"(\.load\((.*)\)\s*$)");
    const std::regex any(q + R"(\.(load|store)\b)");
    std::vector<std::string> out;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      const int n = static_cast<int>(i + 1);
      std::smatch mt;
      if (std::regex_match(line, mt, store)) {
        auto args = MigSplitArgs(mt[2].str());
        std::string dst, val;
        if (args.size() == 2 && args[1].rfind("value=", 0) == 0)
          val = MigTrim(args[1].substr(6));
        else if (args.size() == 2 && args[1].find('=') == std::string::npos)
          val = args[1];
        if (!val.empty() && args[0].find('=') == std::string::npos) dst = args[0];
        if (dst.empty())
          return MigRefuse(n, "this nl.store call", "What features in neuronxcc.nki.* are not available in nki.*?");
        out.push_back(mt[1].str() + isa + ".dma_copy(dst=" + dst + ", src=" + val + ")");
        m.rewrites.push_back("line " + std::to_string(n) + ": " + nl + ".store -> " + isa + ".dma_copy (" + kMigGuide +
                             ")");
        need_isa = true;
      } else if (std::regex_match(line, mt, load)) {
        auto args = MigSplitArgs(mt[3].str());
        if (args.size() != 1 || args[0].find('=') != std::string::npos)
          return MigRefuse(n, "this nl.load call", "What features in neuronxcc.nki.* are not available in nki.*?");
        const std::string ind = mt[1].str(), x = mt[2].str(), s = args[0];
        out.push_back(ind + x + " = " + nl + ".ndarray((" + s + ").shape, dtype=(" + s + ").dtype, buffer=" + nl +
                      ".sbuf)");
        out.push_back(ind + isa + ".dma_copy(dst=" + x + ", src=" + s + ")");
        m.rewrites.push_back("line " + std::to_string(n) + ": " + x + " = " + nl + ".load(...) -> an SBUF " + nl +
                             ".ndarray and " + isa + ".dma_copy (" + kMigGuide + ")");
        need_isa = true;
      } else if (std::regex_search(line, any)) {
        return MigRefuse(n, nl + ".load/" + nl + ".store inside an expression",
                         "What features in neuronxcc.nki.* are not available in nki.*?");
      } else {
        out.push_back(line);
      }
    }
    lines = std::move(out);
  }
  std::string result;
  for (const auto& l : lines) result += l + "\n";
  if (need_isa && nisa.empty()) {
    // After the last import line (line numbers of the rewritten text differ
    // only after it, so it is found again by content).
    std::vector<std::string> again = MigLines(result);
    result.clear();
    for (size_t i = 0; i < again.size(); ++i) {
      result += again[i] + "\n";
      if (static_cast<int>(i + 1) == last_import) result += "import nki.isa as nisa\n";
    }
    m.rewrites.push_back("added: import nki.isa as nisa (for nisa.dma_copy)");
  }
  m.source = result;
  return m;
}

}  // namespace accelopt::eval::nki
