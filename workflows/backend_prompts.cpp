#include "workflows/backend_prompts.hpp"

namespace accelopt::workflows {
namespace {

std::string FactValue(const json& v) { return v.is_string() ? v.get<std::string>() : Dump(v); }

void RenderInto(const json& facts, int depth, std::string* out) {
  const std::string indent(depth * 2, ' ');
  for (const auto& [key, value] : facts.items()) {
    if (value.is_object()) {
      *out += indent + "- " + key + ":\n";
      RenderInto(value, depth + 1, out);
    } else {
      *out += indent + "- " + key + ": " + FactValue(value) + "\n";
    }
  }
}

}  // namespace

std::string FenceCode(std::string_view code, const std::string& lang) {
  std::string out = "```" + lang + "\n";
  out.append(code);
  if (out.back() != '\n') out += '\n';
  out += "```\n";
  return out;
}

std::string RenderFacts(const json& facts) {
  std::string out;
  if (facts.is_object()) RenderInto(facts, 0, &out);
  return out;
}

}  // namespace accelopt::workflows
