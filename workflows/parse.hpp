// Parsing LLM replies: executor code, planner plans, summarizer summaries.
// A reply that cannot be used is a value (an error Status or a failure
// field), never an exception: it becomes a recorded failed candidate or a
// failed plan.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"

namespace accelopt::workflows {

// Fenced blocks (``` or ~~~, optional info string such as "cpp") in order.
// An unterminated last block is returned with `terminated = false`.
struct FencedBlock {
  std::string info;
  std::string body;
  bool terminated = true;
};
std::vector<FencedBlock> FencedBlocks(std::string_view text);

// Failure reasons of CandidateProposed.failure.
inline constexpr const char kNoCodeBlock[] = "no_code_block";
inline constexpr const char kTruncatedCode[] = "truncated_code_block";
inline constexpr const char kMissingFunction[] = "missing_function";
inline constexpr const char kLlmFailed[] = "llm_failed";
// The reply ended inside its reasoning block (<think> never closed): the
// model spent its tokens thinking (raise max_tokens or lower the effort).
inline constexpr const char kReasoningOnly[] = "reasoning_only";
// No code, and the reply declines the task ("I can't help with that").
inline constexpr const char kRefused[] = "refused";
// Set by EvaluationSkipped (paper mode), not by parsing.
inline constexpr const char kSkippedAfterTimeout[] = "skipped_after_timeout";

struct ParsedCode {
  std::string code;
  std::string failure;  // empty when usable, else one of the reasons above
  std::string detail;   // one line a person can read
  bool ok() const { return failure.empty(); }
};

// Reasoning blocks that models write before their answer: every
// <think>...</think> (also <thinking>, <reasoning>) is removed. An opening
// tag that is never closed takes the rest of the reply with it and sets
// *unclosed (the reply was cut off while reasoning).
std::string StripReasoning(std::string_view reply, bool* unclosed = nullptr);

// True when a reply without code reads as a refusal ("I can't", "I'm
// sorry", "I am unable", "As an AI" near its start).
bool LooksLikeRefusal(std::string_view text);

// The code of an executor reply, from what real models write: reasoning
// blocks are dropped (StripReasoning); of the fenced blocks (any language
// tag, or none), the first closed one that defines the problem's kernel
// function `function` the way `backend`'s kernels do (DefinesKernelFunction)
// is taken; a reply with no fence at all whose text defines the function is
// taken from its first line of code on. Otherwise a failure:
// kReasoningOnly (cut off inside <think>), kTruncatedCode (an unclosed
// block, the reply cut off), kMissingFunction (code, but not the function:
// `detail` names what is missing in the backend's terms and the C functions
// the code defines instead), kRefused, kNoCodeBlock.
// `first_block_only` (paper mode): the published rule, the first fenced
// block whatever it holds.
ParsedCode ParseExecutorReply(std::string_view reply, const std::string& function, const std::string& backend,
                              bool first_block_only = false);

// Names of the functions with C linkage that `code` defines (for messages).
std::vector<std::string> ExternCFunctionNames(std::string_view code);

// True when `code` defines function `name` with C linkage (a definition with
// a body, not just a declaration; comments and string literals are ignored).
bool DefinesExternCFunction(std::string_view code, const std::string& name);

// True when the Python module `code` defines `name` at top level: a line
// `def name(` at column 0 outside brackets (decorators above it allowed).
// Comments, string literals and docstrings do not count, nor does a def
// that is indented (in a class, a function or a block).
bool DefinesPythonFunction(std::string_view code, const std::string& name);

// The check a kernel of `backend` must pass: "nki" kernels are Python
// modules (DefinesPythonFunction), every other backend's (cpu, cuda) C or
// C++ with an extern "C" function (DefinesExternCFunction).
bool DefinesKernelFunction(std::string_view code, const std::string& name, const std::string& backend);

// What DefinesKernelFunction looks for, in the backend's terms:
// `def kernel(...)` (nki) or `extern "C" silu(...)`.
std::string KernelFunctionDescription(const std::string& name, const std::string& backend);

struct Plan {
  std::string title;        // one line, markdown stripped
  std::string description;  // the rest (may be empty)
};
// Reasoning blocks are dropped (StripReasoning). First non-empty line is the
// title ("#", "**", "Title:", "Plan:" stripped); the remainder is the
// description. Empty replies (or replies that are all reasoning) are
// kInvalidArgument.
Result<Plan> ParsePlannerReply(std::string_view reply);

// "default" mode: removes every line "Used experiences: 2, 5" (any case,
// markdown emphasis allowed; "none" or nothing = no number) from `reply` and
// returns the numbers it names, ascending, without duplicates. Numbers are
// 1-based as the planner prompt shows them; callers drop out-of-range ones.
std::vector<int> ExtractUsedExperiences(std::string* reply);

struct Summary {
  std::string title;
  std::string description;
  std::string slow_snippet;
  std::string fast_snippet;
  bool no_optimization = false;
};
// Reasoning blocks are dropped (StripReasoning). The first bold span (or
// first line) is the title, the text up to the first
// fenced block the description, the first two fenced blocks the slow and
// fast snippets. A reply saying "No optimization found" sets no_optimization.
// Empty replies are kInvalidArgument.
// `published_rule` (paper mode): "No optimization found" is the published
// plain, case-sensitive substring test on the reply, whatever else it holds.
// Otherwise ("default"): case-insensitive, and only when the reply has fewer
// than two code blocks (a real summary that mentions the phrase stays one).
Result<Summary> ParseSummarizerReply(std::string_view reply, bool published_rule = false);

}  // namespace accelopt::workflows
