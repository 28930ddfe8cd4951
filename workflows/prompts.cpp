#include "workflows/prompts.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace accelopt::workflows {

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string Scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return Dump(v);
}

void RenderInto(const json& facts, int depth, std::string* out) {
  const std::string indent(depth * 2, ' ');
  for (const auto& [key, value] : facts.items()) {
    if (value.is_object()) {
      *out += indent + "- " + key + ":\n";
      RenderInto(value, depth + 1, out);
    } else {
      *out += indent + "- " + key + ": " + Scalar(value) + "\n";
    }
  }
}

std::string Fence(std::string_view code, const char* lang = "cpp") {
  std::string out = "```";
  out += lang;
  out += "\n";
  out.append(code);
  if (out.back() != '\n') out += '\n';
  out += "```\n";
  return out;
}

std::string FormatSpeedup(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::string BackendIntro(const std::string& backend) {
  if (backend == "cpu") {
    return "The kernel is a C++ function compiled by the evaluator with the compiler and flags "
           "listed under the hardware facts, and run on the CPU described there. It is timed "
           "over many calls on fixed inputs; it must compute the same result as the reference "
           "for every input the problem allows.";
  }
  return "The kernel runs on the " + backend +
         " backend described by the hardware facts below; it must compute the same result as "
         "the reference for every input the problem allows.";
}

std::string Rules() {
  return "Rules:\n"
         "- Only use APIs, headers and language features that the baseline kernel already uses.\n"
         "- Never lower the numeric precision (no narrower types for data or accumulators, no "
         "approximate math that changes results beyond the tolerance).\n"
         "- Keep the function's name and signature exactly as given; keep C linkage.\n"
         "- Do not cache results between calls, read timers, or special-case the benchmark "
         "inputs.\n";
}

std::string ProblemSection(const KernelContext& ctx) {
  const json& p = ctx.problem.problem;
  std::string out = "# Problem: " + ctx.problem.name + "\n";
  if (p.contains("description")) out += Scalar(p["description"]) + "\n";
  if (p.contains("dims")) out += "Sizes: " + Dump(p["dims"]) + "\n";
  if (p.contains("bound")) out += "Expected bound: " + Scalar(p["bound"]) + "\n";
  out += "\n## Reference implementation (trusted, double precision)\n" + Fence(ctx.reference);
  out += "\n## How the kernel is called\n" + Fence(ctx.problem.signature, "c");
  out += "\n## Current kernel\n" + Fence(ctx.kernel);
  return out;
}

std::string HardwareSection(const KernelContext& ctx) {
  std::string facts = ctx.hardware.is_object() && !ctx.hardware.empty()
                          ? RenderFacts(ctx.hardware)
                          : std::string("- (none recorded)\n");
  return "# Hardware facts (" + ctx.problem.backend + ")\n" + facts;
}

// Every item reads slow → fast (a negative pair has the slower child as
// "slow" and its parent as "fast"), as the paper's memory does; kinds and
// measured speedups are not shown.
std::string RenderMemory(const std::vector<MemoryItem>& memory) {
  std::string out = "# Experiences\n";
  if (memory.empty()) return out + "(none yet)\n";
  out += "Rewrites of kernels like this one, each from a slower version to a faster one.\n";
  int n = 0;
  for (const MemoryItem& m : memory) {
    out += "\n## " + std::to_string(++n) + ". " + m.title + "\n";
    if (!m.description.empty()) out += m.description + "\n";
    if (!m.slow_snippet.empty()) out += "Slow:\n" + Fence(m.slow_snippet);
    if (!m.fast_snippet.empty()) out += "Fast:\n" + Fence(m.fast_snippet);
  }
  return out;
}

bool IsTimeKey(const std::string& key) {
  const std::string k = Lower(key);
  for (const char* word : {"latency", "time", "duration", "elapsed", "_us", "_ns", "_ms"}) {
    if (k.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::string RenderFacts(const json& facts) {
  std::string out;
  if (facts.is_object()) RenderInto(facts, 0, &out);
  return out;
}

std::vector<std::pair<std::string, json>> ShuffledProfile(const json& profile, Rng& rng) {
  std::vector<std::pair<std::string, json>> fields;
  if (!profile.is_object()) return fields;
  for (const auto& [key, value] : profile.items()) {  // sorted by key: a fixed start
    if (!value.is_number() || IsTimeKey(key)) continue;
    fields.emplace_back(key, value);
  }
  rng.Shuffle(fields);
  return fields;
}

ChatPrompt PlannerPrompt(const KernelContext& ctx, const json& profile,
                         const std::vector<MemoryItem>& memory, Rng& rng,
                         bool ask_used_experiences) {
  ChatPrompt p;
  p.system =
      "You are a performance engineer planning the next optimization of a compute kernel. " +
      BackendIntro(ctx.problem.backend) + "\n\n" + Rules() + "\n" + HardwareSection(ctx) + "\n" +
      RenderMemory(memory);
  p.user = ProblemSection(ctx);
  p.user += "\n## Profile of the current kernel\n";
  auto fields = ShuffledProfile(profile, rng);
  if (fields.empty()) p.user += "(no profile metrics)\n";
  for (const auto& [key, value] : fields) p.user += "- " + key + ": " + Scalar(value) + "\n";
  p.user +=
      "\n# Task\nPropose exactly one optimization plan with a single step that should make the "
      "current kernel faster. Reply with a short title on the first line, then a description "
      "of the change and why it helps on this hardware. Do not write the full kernel.\n";
  if (ask_used_experiences) {
    p.user += "End with one line naming the numbered experiences the plan draws on, e.g. "
              "\"Used experiences: 2, 5\", or \"Used experiences: none\".\n";
  }
  return p;
}

std::string TruncateMiddle(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  const size_t head = max_bytes / 2, tail = max_bytes - head;
  return std::string(text.substr(0, head)) + "\n[... " +
         std::to_string(text.size() - max_bytes) + " bytes cut ...]\n" +
         std::string(text.substr(text.size() - tail));
}

ChatPrompt FixPrompt(const KernelContext& ctx, const Plan& plan, std::string_view failed_code,
                     const std::string& status, const std::string& reason,
                     std::string_view error) {
  ChatPrompt p = ExecutorPrompt(ctx, plan);
  const size_t task = p.user.rfind("\n# Task\n");
  if (task != std::string::npos) p.user.resize(task);
  p.user += "\n## Your rewrite\n" + Fence(failed_code);
  p.user += "\n## What the evaluator said\n" + status + (reason.empty() ? "" : ": " + reason) +
            "\n";
  if (!error.empty()) p.user += Fence(TruncateMiddle(error, kFixErrorBytes), "text");
  p.user += "\n# Task\nFix your rewrite so that it compiles, computes the same result as the "
            "reference and finishes in time, keeping the plan's optimization. Reply with the "
            "complete kernel source in one fenced ```cpp code block (the first code block is "
            "taken). It must define:\n" +
            Fence(ctx.problem.signature, "c");
  return p;
}

ChatPrompt ExecutorPrompt(const KernelContext& ctx, const Plan& plan) {
  ChatPrompt p;
  p.system = "You are a performance engineer who implements one optimization plan in a compute "
             "kernel. " +
             BackendIntro(ctx.problem.backend) + "\n\n" + Rules() + "\n" + HardwareSection(ctx);
  p.user = ProblemSection(ctx);
  p.user += "\n## Plan\n" + plan.title + "\n";
  if (!plan.description.empty()) p.user += plan.description + "\n";
  p.user += "\n# Task\nRewrite the current kernel following the plan. Reply with the complete "
            "kernel source in one fenced ```cpp code block (the first code block is taken). It "
            "must define:\n" +
            Fence(ctx.problem.signature, "c");
  return p;
}

ChatPrompt SummarizerPrompt(const ProblemInfo& problem, std::string_view slow_code,
                            std::string_view fast_code, std::optional<double> speedup) {
  ChatPrompt p;
  p.system =
      "You distill kernel rewrites into reusable optimization experience for the " +
      problem.backend +
      " backend. Describe the transformation in general terms that apply to other kernels, not "
      "only this one.";
  p.user = "# Problem: " + problem.name + "\n";
  p.user += "\n## Slow kernel\n" + Fence(slow_code);
  p.user += "\n## Fast kernel\n" + Fence(fast_code);
  if (speedup) {
    p.user += "\nThe fast kernel is " + FormatSpeedup(*speedup) + "x faster than the slow one.\n";
  } else {
    p.user += "\nThe fast kernel is faster than the slow one.\n";
  }
  p.user +=
      "\n# Task\nReply with a short bold title (**like this**), then a general description of "
      "the rewrite that made the difference, then the relevant part of the slow code and of the "
      "fast code, each in its own fenced code block (slow first). If the two kernels do not "
      "differ in any meaningful optimization, reply only \"No optimization found\".\n";
  return p;
}

}  // namespace accelopt::workflows
