#include "workflows/prompt_shorten.hpp"

namespace accelopt::workflows {
namespace {

constexpr char kLeftOut[] = "(left out: the prompt was over the model's context window)\n";

// Cuts [from, to) of `text` where `from` is the start of `marker` (npos:
// not there) and `to` the first of `ends` after it (or the end of the text),
// putting `replacement` in its place. True when something was cut.
bool CutSection(std::string* text, const std::string& marker, const std::vector<std::string>& ends,
                const std::string& replacement) {
  const size_t from = text->find(marker);
  if (from == std::string::npos) return false;
  size_t to = text->size();
  for (const std::string& end : ends) {
    const size_t at = text->find(end, from + marker.size());
    if (at != std::string::npos && at < to) to = at;
  }
  text->replace(from, to - from, replacement);
  return true;
}

}  // namespace

std::optional<ShortenedPrompt> ShortenPrompt(const ChatPrompt& prompt) {
  ShortenedPrompt out{prompt, {}};
  ChatPrompt& p = out.prompt;
  // The memory is the planner's last system section (prompts.cpp,
  // PlannerPrompt): everything after its heading is items and their code.
  if (CutSection(&p.system, "\n# Experiences\n", {}, std::string("\n# Experiences\n") + kLeftOut)) {
    out.trimmed.push_back("memory");
  }
  // The profile: "where it stands" (default mode) and the metrics, up to the
  // task; the glossary up to its blank line.
  bool profile =
      CutSection(&p.user, "\n## Where the current kernel stands\n", {"\n## Profile of the current kernel\n"}, "");
  profile = CutSection(&p.user, "\n## Profile of the current kernel\n", {"\n# Task\n"},
                       std::string("\n## Profile of the current kernel\n") + kLeftOut) ||
            profile;
  profile = CutSection(&p.system, "\n# Profile fields\n", {"\n\n"}, "") || profile;
  if (profile) out.trimmed.push_back("profile");
  if (out.trimmed.empty() && CutSection(&p.system, "\n# Hardware (", {}, std::string("\n# Hardware\n") + kLeftOut)) {
    out.trimmed.push_back("hardware");
  }
  if (out.trimmed.empty() || p.bytes() >= prompt.bytes()) return std::nullopt;
  return out;
}

}  // namespace accelopt::workflows
