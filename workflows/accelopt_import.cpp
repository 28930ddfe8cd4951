#include "workflows/accelopt_import.hpp"
#include "base/text.hpp"

#include "base/sha256.hpp"
#include "workflows/parse.hpp"

namespace accelopt::workflows {

namespace {

constexpr char kNoOptimization[] = "No optimization found";
constexpr char kOriginal[] = "Original code:";
constexpr char kOptimized[] = "Optimized code:";

std::string String(const json& o, const char* key) {
  return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : "";
}

std::string StripBold(std::string s) {
  s = Trim(std::move(s));
  if (s.size() >= 4 && s.compare(0, 2, "**") == 0 && s.compare(s.size() - 2, 2, "**") == 0) {
    s = s.substr(2, s.size() - 4);
  }
  return Trim(std::move(s));
}

// The first fenced block after `marker` in `text` ("" when none).
std::string BlockAfter(const std::string& text, const char* marker) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return "";
  auto blocks = FencedBlocks(std::string_view(text).substr(at));
  return blocks.empty() ? "" : blocks.front().body;
}

Result<double> PositiveNumber(const json& e, const char* key, const std::string& where) {
  if (!e.contains(key)) return InvalidArgument(where + ": " + key + " is missing");
  double v = 0;
  if (e[key].is_number()) {
    v = e[key].get<double>();
  } else if (e[key].is_string()) {
    try {
      v = std::stod(e[key].get<std::string>());
    } catch (const std::exception&) {
      return InvalidArgument(where + ": " + key + " is not a number");
    }
  } else {
    return InvalidArgument(where + ": " + key + " is not a number");
  }
  if (!(v > 0)) return InvalidArgument(where + ": " + key + " must be > 0");
  return v;
}

}  // namespace

Result<std::vector<MemoryItem>> ParseAccelOptExperiences(const json& list, const std::string& id_prefix) {
  if (!list.is_array()) {
    return InvalidArgument("an AccelOpt experience list is a JSON array (or {\"experiences\": [...]})");
  }
  std::vector<MemoryItem> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& e = list[i];
    const std::string where = "experience " + std::to_string(i);
    if (!e.is_object()) return InvalidArgument(where + ": not an object");
    const std::string title = String(e, "title");
    const std::string summary = String(e, "summary");
    if (title.empty() && summary.empty()) return InvalidArgument(where + ": needs a title or a summary");
    double child_speedup = 0;
    if (e.contains("speedup_original")) {
      ACCELOPT_ASSIGN_OR_RETURN(child_speedup, PositiveNumber(e, "speedup_original", where));
    } else {
      // Lists from before speedup_original: only the magnitude is known.
      ACCELOPT_ASSIGN_OR_RETURN(child_speedup, PositiveNumber(e, "speedup", where));
    }
    double speedup = child_speedup >= 1 ? child_speedup : 1 / child_speedup;
    if (e.contains("speedup")) {
      ACCELOPT_ASSIGN_OR_RETURN(speedup, PositiveNumber(e, "speedup", where));
    }
    MemoryItem m;
    m.id = id_prefix + "/" + std::to_string(i);
    m.kind = child_speedup < 1 ? kNegative : kPositive;
    m.title = StripBold(title);
    m.no_optimization = !e.contains("summary") || title.find(kNoOptimization) != std::string::npos ||
                        summary.find(kNoOptimization) != std::string::npos;
    if (!summary.empty()) {
      std::string body = summary;
      if (const size_t o = body.find(kOriginal); o != std::string::npos) body.resize(o);
      // The bold title span opens the summary; the rest is the description.
      const size_t b = body.find("**");
      const size_t close = b == std::string::npos ? std::string::npos : body.find("**", b + 2);
      if (b != std::string::npos && close != std::string::npos && Trim(body.substr(0, b)).empty()) {
        if (m.title.empty()) m.title = Trim(body.substr(b + 2, close - b - 2));
        body = body.substr(close + 2);
      }
      m.description = Trim(body);
      m.slow_snippet = BlockAfter(summary, kOriginal);
      m.fast_snippet = BlockAfter(summary, kOptimized);
      if (summary.find(kOriginal) == std::string::npos && summary.find(kOptimized) == std::string::npos) {
        auto blocks = FencedBlocks(summary);
        if (!blocks.empty()) m.slow_snippet = blocks[0].body;
        if (blocks.size() > 1) m.fast_snippet = blocks[1].body;
        if (!blocks.empty()) {
          const size_t fence = m.description.find("```");
          if (fence != std::string::npos) m.description = Trim(m.description.substr(0, fence));
        }
      }
    }
    m.problem = String(e, "case_name");
    m.summarizer_activity = "import";
    m.pair.kind = m.kind;
    m.pair.speedup = speedup;
    m.pair.child_speedup = child_speedup;
    if (e.contains("id")) {
      const std::string id = e["id"].is_string() ? e["id"].get<std::string>() : Dump(e["id"]);
      m.pair.plan_id = String(e, "service_name") + "/" + id;
    }
    if (e.contains("slow_kernel") && e["slow_kernel"].is_string())
      m.pair.slow_sha256 = Sha256Hex(String(e, "slow_kernel"));
    if (e.contains("fast_kernel") && e["fast_kernel"].is_string())
      m.pair.fast_sha256 = Sha256Hex(String(e, "fast_kernel"));
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace accelopt::workflows
