// Prompts of the three agents (our own wording, after the paper's roles).
// Each agent is one chat call: a system prompt and one user message. What a
// prompt says about the backend (rules, compile command, correctness
// contract, hardware, profile glossary, planning guidance, pitfalls) comes
// from the backend's prompt set (prompt_backend.hpp); docs/prompts.md
// describes the prompts and `accelopt-eval prompts` renders them.
//
//  * Planner: system = role, the backend's intro and rules, the problem's
//    correctness contract, the hardware, the glossary of the profile fields
//    shown, the planning guidance and — under an "# Experiences" heading —
//    the memory. User = the problem, the reference, the signature, the
//    current kernel and its profile (fields in shuffled order). Asks for one
//    plan of one step.
//  * Executor: system = role, intro, rules, correctness, hardware and the
//    pitfalls sheet; user = the problem, reference, signature, current
//    kernel and one plan. Asks for the whole kernel in one fenced block. No
//    profile, no memory.
//  * Summarizer: a slow and a fast kernel with the real speedup. Asks for a
//    bold title, a general description and the two snippets, or
//    "No optimization found".
//
// Modes. kDefault shows the planner where the kernel stands (latency, its
// roofline latency, % of peak). kPaper shows what the published planner
// shows: the profile fields, shuffled, with the kernel's `latency` in
// milliseconds among them (published prompts/planner_prompts/
// displayed_profiles.json and base_prompt.txt:40 @47e29a7) when the profile
// passed in has a numeric "latency" (kPaperLatencyKey; the campaign sets it
// from the measured latency). Otherwise both modes see the same backend
// facts and the paper's structure; kPaper leaves the "# Experiences"
// section out while the memory shown is empty (kDefault says "(none yet)").
// kPaper's planner gets no guidance the published NKI templates lack: the
// published template's six planning points (the fifth is the backend's API
// rule) instead of the backend's own, and a task without "why it helps on
// this hardware" or "do not write the full kernel".
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.hpp"
#include "workflows/prompt_backend.hpp"
#include "workflows/memory_policy.hpp"
#include "workflows/parse.hpp"
#include "workflows/problem.hpp"
#include "workflows/rng.hpp"

namespace accelopt::workflows {

struct ChatPrompt {
  std::string system;
  std::string user;
  size_t bytes() const { return system.size() + user.size(); }
};

enum class PromptMode { kDefault, kPaper };

// The profile key of the latency in milliseconds that kPaper planners see.
inline constexpr const char kPaperLatencyKey[] = "latency";
// The plan every executor of a "sampling" campaign gets (no planner).
inline constexpr const char kSamplingPlanTitle[] = "Make the current kernel faster";
inline constexpr const char kSamplingPlanDescription[] =
    "Choose the optimization you expect to help most on this hardware and implement it.";

// `profile` with kPaperLatencyKey = latency_us / 1000 (unchanged when
// latency_us <= 0 or profile is not an object).
json WithPaperLatency(json profile, double latency_us);

// Profile metrics in the order the planner sees them, keys shuffled with
// `rng`: the backend's fields (its glossary), or, for a backend without a
// glossary, every numeric key that does not name a latency or time; kPaper
// adds the profile's kPaperLatencyKey (ms) when it is a number.
std::vector<std::pair<std::string, json>> ShuffledProfile(const std::string& backend, const json& profile,
                                                          PromptMode mode, Rng& rng);

struct KernelContext {
  const ProblemInfo& problem;
  const json& hardware;        // the backend's facts (cpu: the calibration JSON)
  std::string_view reference;  // reference.cpp text
  std::string_view kernel;     // the current kernel's source
  PromptMode mode = PromptMode::kDefault;
};

// `ask_used_experiences` ("default" mode): the task also asks for a last
// line "Used experiences: 2, 5" naming the numbered experiences the plan
// drew on ("none" when it used none).
ChatPrompt PlannerPrompt(const KernelContext& ctx, const json& profile, const std::vector<MemoryItem>& memory, Rng& rng,
                         bool ask_used_experiences = false);

ChatPrompt ExecutorPrompt(const KernelContext& ctx, const Plan& plan);

// The fixer ("default" mode): the executor again, with its rewrite that
// failed and the evaluator's verdict. `error` is cut to kFixErrorBytes (head
// and tail kept).
inline constexpr size_t kFixErrorBytes = 4096;
ChatPrompt FixPrompt(const KernelContext& ctx, const Plan& plan, std::string_view failed_code,
                     const std::string& status, const std::string& reason, std::string_view error);

// Cuts `text` to at most `max_bytes` (+ a marker line), keeping the head and
// the tail.
std::string TruncateMiddle(std::string_view text, size_t max_bytes);

// `speedup` = slow latency / fast latency (>= 1), or nullopt to leave it out
// (the published code never filled it in; "paper" mode does the same).
// kPaper asks for "No optimization found" only when the two kernels are
// identical (as published); kDefault also when they differ in no meaningful
// optimization.
ChatPrompt SummarizerPrompt(const ProblemInfo& problem, std::string_view slow_code, std::string_view fast_code,
                            std::optional<double> speedup, PromptMode mode = PromptMode::kDefault);

// The mode a campaign's prompts use (spec.mode "paper" -> kPaper).
PromptMode PromptModeOf(const std::string& spec_mode);

}  // namespace accelopt::workflows
