#include "workflows/prompts.hpp"
#include "base/text.hpp"
#include "workflows/problem_json.hpp"
#include "workflows/prompt_backend.hpp"
#include "workflows/backend_traits.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace accelopt::workflows {

namespace {

std::string Scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  return Dump(v);
}

double NumberOr(const json& o, const char* key, double fallback) {
  return o.is_object() && o.contains(key) && o[key].is_number() ? o[key].get<double>() : fallback;
}

std::string Fence(std::string_view code, const std::string& lang = "cpp") { return FenceCode(code, lang); }

// The fence language of a backend's kernels (backend_traits.hpp).
const std::string& KernelLanguage(const std::string& backend) { return TraitsOf(backend).kernel_language; }

// What the executor's reply must define, after "It must define:": the
// backend's prompt set says (nki: an @nki.jit def; triton: the Python
// signature), else the C declaration.
std::string MustDefine(const ProblemInfo& problem) {
  const BackendPrompts& b = BackendPromptsFor(problem.backend);
  return b.must_define ? b.must_define(problem) : Fence(problem.signature, "c");
}

// The body of "How the kernel is called" ("" : no such section).
std::string CalledAs(const ProblemInfo& problem) {
  const BackendPrompts& b = BackendPromptsFor(problem.backend);
  return b.called_as ? b.called_as(problem) : Fence(problem.signature, "c");
}

std::string FormatSpeedup(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::string Role(const char* what, const KernelContext& ctx) {
  const BackendPrompts& b = BackendPromptsFor(ctx.problem.backend);
  return std::string(what) + " for the " + ctx.problem.backend + " backend. " + b.intro + "\n\n" + b.rules;
}

std::string CorrectnessSection(const KernelContext& ctx) {
  return "\n# Correctness\n" + BackendPromptsFor(ctx.problem.backend).correctness(ctx.problem.problem);
}

std::string HardwareSection(const KernelContext& ctx) {
  return "\n# Hardware (" + ctx.problem.backend + ")\n" + BackendPromptsFor(ctx.problem.backend).hardware(ctx.hardware);
}

std::string GlossarySection(const KernelContext& ctx) {
  const BackendPrompts& b = BackendPromptsFor(ctx.problem.backend);
  if (b.fields.empty()) return "";
  std::string out = "\n# Profile fields\n";
  if (ctx.mode == PromptMode::kDefault) {
    out +=
        "- latency_us: the median time of one call over the judge's timed calls (microseconds)\n"
        "- roofline_us: the least time this machine needs for the problem's flops and bytes: the "
        "larger of flops / peak and bytes / bandwidth (microseconds)\n"
        "- percent_of_peak: 100 x roofline_us / latency_us, the number to raise\n";
  }
  for (const ProfileField& f : b.fields) out += "- " + f.key + ": " + f.meaning + "\n";
  if (ctx.mode == PromptMode::kPaper) {
    out += std::string("- ") + kPaperLatencyKey + ": the kernel's measured time of one call, in milliseconds\n";
  }
  return out;
}

// kDefault: latency, roofline latency and % of peak, from the profile's
// flops / achieved_gflops and roofline fields (the evaluator's formulas).
std::string StandingSection(const json& profile) {
  const double flops = NumberOr(profile, "flops", 0), gflops = NumberOr(profile, "achieved_gflops", 0);
  if (!(flops > 0 && gflops > 0)) return "";
  const double latency_us = flops / gflops / 1e3;
  std::string out = "\n## Where the current kernel stands\n- latency_us: " + Scalar(json(latency_us)) + "\n";
  const double roof = std::max(NumberOr(profile, "roofline_compute_us", 0), NumberOr(profile, "roofline_memory_us", 0));
  if (roof > 0) {
    const bool memory = NumberOr(profile, "roofline_memory_us", 0) >= NumberOr(profile, "roofline_compute_us", 0);
    out += "- roofline_us: " + Scalar(json(roof)) + " (" + (memory ? "memory" : "compute") + " side)\n";
    out += "- percent_of_peak: " + Scalar(json(100 * roof / latency_us)) + "\n";
  }
  return out;
}

std::string ProblemSection(const KernelContext& ctx) {
  const json& p = ctx.problem.problem;
  std::string out = "# Problem: " + ctx.problem.name + "\n";
  if (p.contains("description")) out += Scalar(p["description"]) + "\n";
  if (p.contains("dims")) out += "Sizes: " + Dump(p["dims"]) + "\n";
  if (p.contains("bound")) out += "Expected bound: " + Scalar(p["bound"]) + "\n";
  const std::string& lang = KernelLanguage(ctx.problem.backend);
  // The reference is the judge's: Python for nki, C++ (double, on the CPU) otherwise.
  out += "\n## Reference implementation (trusted, double precision)\n" +
         Fence(ctx.reference, TraitsOf(ctx.problem.backend).reference_language);
  // nki: the kernel takes the inputs and returns the outputs (the current
  // kernel shows its arguments): its prompt set has no such section.
  if (const std::string called = CalledAs(ctx.problem); !called.empty()) {
    out += "\n## How the kernel is called\n" + called;
  }
  out += "\n## Current kernel\n" + Fence(ctx.kernel, lang);
  return out;
}

// Every item reads slow → fast (a negative pair has the slower child as
// "slow" and its parent as "fast"), as the paper's memory does; kinds and
// measured speedups are not shown.
std::string RenderMemory(const std::vector<MemoryItem>& memory, const std::string& lang) {
  std::string out = "# Experiences\n";
  if (memory.empty()) return out + "(none yet)\n";
  out += "Rewrites of kernels like this one, each from a slower version to a faster one.\n";
  int n = 0;
  for (const MemoryItem& m : memory) {
    out += "\n## " + std::to_string(++n) + ". " + m.title + "\n";
    if (!m.description.empty()) out += m.description + "\n";
    if (!m.slow_snippet.empty()) out += "Slow:\n" + Fence(m.slow_snippet, lang);
    if (!m.fast_snippet.empty()) out += "Fast:\n" + Fence(m.fast_snippet, lang);
  }
  return out;
}

// "paper" mode's planning guidance: the six points of the published
// template (prompts/planner_prompts/planner_prompt_template.txt:6-12
// @47e29a7), in our words, and nothing the template lacks; the fifth point
// is the backend's API rule (backend_prompts.hpp, api_rule).
std::string PaperPlanning(const BackendPrompts& b) {
  const std::string api =
      b.api_rule.empty() ? "Use only what the rules above allow; do not invent functions or APIs." : b.api_rule;
  return "How to plan:\n"
         "1. Start from the profile and look for inefficiencies.\n"
         "2. Read the current kernel with those in mind and plan a change that fixes one.\n"
         "3. Think of loop ordering, tiling, loop split and merge, liveness analysis, data reuse, "
         "reordering instructions or blocks of instructions, hoisting redundant operations out of "
         "loops, fusion, and other methods not listed here.\n"
         "4. A compiler sits between the source and the hardware, so the profile may not match what "
         "the source suggests; a plan may still aim at a particular metric.\n"
         "5. " +
         api +
         "\n"
         "6. Do not lower the numeric precision below the baseline kernel's.\n";
}

bool IsTimeKey(const std::string& key) {
  const std::string k = Lower(key);
  for (const char* word : {"latency", "time", "duration", "elapsed", "_us", "_ns", "_ms"}) {
    if (k.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::vector<std::pair<std::string, json>> ShuffledProfile(const std::string& backend, const json& profile,
                                                          PromptMode mode, Rng& rng) {
  std::vector<std::pair<std::string, json>> fields;
  if (!profile.is_object()) return fields;
  const BackendPrompts& b = BackendPromptsFor(backend);
  if (b.fields.empty()) {
    for (const auto& [key, value] : profile.items()) {  // sorted by key: a fixed start
      if (!value.is_number() || IsTimeKey(key)) continue;
      fields.emplace_back(key, value);
    }
  } else {
    for (const ProfileField& f : b.fields) {  // the glossary's order: a fixed start
      if (profile.contains(f.key) && profile[f.key].is_number()) fields.emplace_back(f.key, profile[f.key]);
    }
  }
  if (mode == PromptMode::kPaper && profile.contains(kPaperLatencyKey) && profile[kPaperLatencyKey].is_number()) {
    fields.emplace_back(kPaperLatencyKey, profile[kPaperLatencyKey]);
  }
  rng.Shuffle(fields);
  return fields;
}

json WithPaperLatency(json profile, double latency_us) {
  if (profile.is_object() && latency_us > 0) profile[kPaperLatencyKey] = latency_us / 1000.0;
  return profile;
}

PromptMode PromptModeOf(const std::string& spec_mode) {
  return spec_mode == "paper" ? PromptMode::kPaper : PromptMode::kDefault;
}

ChatPrompt PlannerPrompt(const KernelContext& ctx, const json& profile, const std::vector<MemoryItem>& memory, Rng& rng,
                         bool ask_used_experiences) {
  ChatPrompt p;
  p.system = Role("You are a performance engineer planning the next optimization of a compute kernel", ctx) +
             CorrectnessSection(ctx) + HardwareSection(ctx) + GlossarySection(ctx) + "\n";
  const BackendPrompts& b = BackendPromptsFor(ctx.problem.backend);
  p.system += ctx.mode == PromptMode::kPaper ? PaperPlanning(b) : b.planning;
  // paper: no Experiences section while nothing is shown (published
  // prompts/planner_prompts/construct_base_prompt.py:26-28 @47e29a7).
  if (ctx.mode != PromptMode::kPaper || !memory.empty()) {
    p.system += "\n" + RenderMemory(memory, KernelLanguage(ctx.problem.backend));
  }
  p.user = ProblemSection(ctx);
  if (ctx.mode == PromptMode::kDefault) p.user += StandingSection(profile);
  p.user += "\n## Profile of the current kernel\n";
  auto fields = ShuffledProfile(ctx.problem.backend, profile, ctx.mode, rng);
  if (fields.empty()) p.user += "(no profile metrics)\n";
  for (const auto& [key, value] : fields) p.user += "- " + key + ": " + Scalar(value) + "\n";
  if (ctx.mode == PromptMode::kPaper) {
    // As the published template asks (planner_prompt_template.txt:1-3),
    // with the reply's shape our parser reads (parse.hpp).
    p.user +=
        "\n# Task\nPropose one optimization plan, of one step, to make the current kernel faster, "
        "drawing on parallel computing, kernel optimization, tensor compiler optimization and "
        "computer architecture. Reply with a short title on the first line, then the plan.\n";
    return p;
  }
  p.user +=
      "\n# Task\nPropose exactly one optimization plan with a single step that should make the "
      "current kernel faster. Reply with a short title on the first line, then a description "
      "of the change and why it helps on this hardware. Do not write the full kernel.\n";
  if (ask_used_experiences) {
    p.user +=
        "End with one line naming the numbered experiences the plan draws on, e.g. "
        "\"Used experiences: 2, 5\", or \"Used experiences: none\".\n";
  }
  return p;
}

std::string TruncateMiddle(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  const size_t head = max_bytes / 2, tail = max_bytes - head;
  return std::string(text.substr(0, head)) + "\n[... " + std::to_string(text.size() - max_bytes) + " bytes cut ...]\n" +
         std::string(text.substr(text.size() - tail));
}

ChatPrompt FixPrompt(const KernelContext& ctx, const Plan& plan, std::string_view failed_code,
                     const std::string& status, const std::string& reason, std::string_view error) {
  ChatPrompt p = ExecutorPrompt(ctx, plan);
  const size_t task = p.user.rfind("\n# Task\n");
  if (task != std::string::npos) p.user.resize(task);
  p.user += "\n## Your rewrite\n" + Fence(failed_code, KernelLanguage(ctx.problem.backend));
  p.user += "\n## What the evaluator said\n" + status + (reason.empty() ? "" : ": " + reason) + "\n";
  if (!error.empty()) p.user += Fence(TruncateMiddle(error, kFixErrorBytes), "text");
  p.user +=
      "\n# Task\nFix your rewrite so that it compiles, computes the same result as the "
      "reference and finishes in time, keeping the plan's optimization. Reply with the "
      "complete kernel source in one fenced ```" +
      KernelLanguage(ctx.problem.backend) + " code block (the first code block is taken). It must define:\n" +
      MustDefine(ctx.problem);
  return p;
}

ChatPrompt ExecutorPrompt(const KernelContext& ctx, const Plan& plan) {
  ChatPrompt p;
  const BackendPrompts& b = BackendPromptsFor(ctx.problem.backend);
  p.system = Role("You are a performance engineer who implements one optimization plan in a compute kernel", ctx) +
             CorrectnessSection(ctx) + HardwareSection(ctx);
  if (!b.pitfalls.empty()) p.system += "\n" + b.pitfalls;
  p.user = ProblemSection(ctx);
  p.user += "\n## Plan\n" + plan.title + "\n";
  if (!plan.description.empty()) p.user += plan.description + "\n";
  p.user +=
      "\n# Task\nRewrite the current kernel following the plan. Reply with the complete "
      "kernel source in one fenced ```" +
      KernelLanguage(ctx.problem.backend) + " code block (the first code block is taken). It must define:\n" +
      MustDefine(ctx.problem);
  return p;
}

ChatPrompt SummarizerPrompt(const ProblemInfo& problem, std::string_view slow_code, std::string_view fast_code,
                            std::optional<double> speedup, PromptMode mode) {
  ChatPrompt p;
  p.system = "You distill kernel rewrites into reusable optimization experience for the " + problem.backend +
             " backend. " + BackendPromptsFor(problem.backend).intro +
             "\n\nDescribe the transformation in general terms that apply to other kernels, not only "
             "this one.";
  p.user = "# Problem: " + problem.name + "\n";
  p.user += "\n## Slow kernel\n" + Fence(slow_code, KernelLanguage(problem.backend));
  p.user += "\n## Fast kernel\n" + Fence(fast_code, KernelLanguage(problem.backend));
  if (speedup) {
    p.user += "\nThe fast kernel is " + FormatSpeedup(*speedup) + "x faster than the slow one.\n";
  } else {
    p.user += "\nThe fast kernel is faster than the slow one.\n";
  }
  p.user +=
      "\n# Task\nReply with a short bold title (**like this**), then a general description of "
      "the rewrite that made the difference, then the relevant part of the slow code and of the "
      "fast code, each in its own fenced code block (slow first). ";
  // paper: "No optimization found" only for identical kernels, as published
  // (prompts/summarizer_prompts/base_prompt.txt:4 @47e29a7).
  p.user += mode == PromptMode::kPaper ? "If the two kernels are identical, reply only \"No optimization found\".\n"
                                       : "If the two kernels do not differ in any meaningful optimization, reply only "
                                         "\"No optimization found\".\n";
  return p;
}

}  // namespace accelopt::workflows
