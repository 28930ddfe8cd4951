// Prompts of the three agents (our own wording, after the paper's roles).
// Each agent is one chat call: a system prompt and one user message.
//
//  * Planner: role, rules, the backend's hardware facts and — under an
//    "Experiences" heading in the system prompt — the memory. The user
//    message has the problem, the reference, the current kernel with its C
//    signature, and its profile in shuffled order (latency is not shown).
//    Asks for one plan of one step.
//  * Executor: role, rules, hardware facts; the problem, reference, current
//    kernel, signature and one plan. Asks for the whole kernel in one fenced
//    block. No profile, no memory.
//  * Summarizer: a slow and a fast kernel with the real speedup. Asks for a
//    bold title, a general description and the two snippets, or
//    "No optimization found".
//
// Hardware facts are JSON the runtime passes in at start (for cpu: cores,
// SIMD width, caches, calibrated peaks, compiler) and are rendered as a list.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.hpp"
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

// Renders JSON facts as "- key: value" lines (nested objects indented).
std::string RenderFacts(const json& facts);

// Profile metrics in the order the planner sees them: keys shuffled with
// `rng`; keys that name a latency or time are left out; non-numbers skipped.
std::vector<std::pair<std::string, json>> ShuffledProfile(const json& profile, Rng& rng);

struct KernelContext {
  const ProblemInfo& problem;
  const json& hardware;
  std::string_view reference;  // reference.cpp text
  std::string_view kernel;     // the current kernel's source
};

// `ask_used_experiences` ("default" mode): the task also asks for a last
// line "Used experiences: 2, 5" naming the numbered experiences the plan
// drew on ("none" when it used none).
ChatPrompt PlannerPrompt(const KernelContext& ctx, const json& profile,
                         const std::vector<MemoryItem>& memory, Rng& rng,
                         bool ask_used_experiences = false);

ChatPrompt ExecutorPrompt(const KernelContext& ctx, const Plan& plan);

// The fixer ("default" mode): the executor again, with its rewrite that
// failed and the evaluator's verdict. `error` is cut to kFixErrorBytes (head
// and tail kept).
inline constexpr size_t kFixErrorBytes = 4096;
ChatPrompt FixPrompt(const KernelContext& ctx, const Plan& plan, std::string_view failed_code,
                     const std::string& status, const std::string& reason,
                     std::string_view error);

// Cuts `text` to at most `max_bytes` (+ a marker line), keeping the head and
// the tail.
std::string TruncateMiddle(std::string_view text, size_t max_bytes);

// `speedup` = slow latency / fast latency (>= 1), or nullopt to leave it out
// (the published code never filled it in; "paper" mode does the same).
ChatPrompt SummarizerPrompt(const ProblemInfo& problem, std::string_view slow_code,
                            std::string_view fast_code, std::optional<double> speedup);

}  // namespace accelopt::workflows
