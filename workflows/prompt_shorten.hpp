// A shorter prompt for a call the model's server refused as over its context
// window (llm error kind `context_overflow`): the call is sent once more with
// what the agent can do without left out, and fails with the server's words
// if that is still too long (daemon/campaign_runner_llm.cpp, docs/llm.md).
//
// What goes, in this order of preference (prompts.hpp names the sections):
//   * "memory": the planner's "# Experiences" section (the last of its
//     system prompt), replaced by one line saying it was left out;
//   * "profile": the planner's "## Where the current kernel stands" and
//     "## Profile of the current kernel" sections of the user message, and
//     the glossary ("# Profile fields", up to its blank line) of the system
//     prompt;
//   * only when neither was there (the executor, the fixer): "hardware",
//     the system prompt's "# Hardware (...)" section to its end (the facts
//     sheet and the executor's pitfalls).
// The problem, the reference, the kernel, the plan and the task stay: without
// them the call has no point. The summarizer's prompt (two kernels) has
// nothing to leave out.
//
// Thread safety: pure function.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "workflows/prompts.hpp"

namespace accelopt::workflows {

struct ShortenedPrompt {
  ChatPrompt prompt;
  std::vector<std::string> trimmed;  // "memory", "profile", "hardware", in that order
};

// nullopt when nothing can be left out (the prompt would not get shorter).
std::optional<ShortenedPrompt> ShortenPrompt(const ChatPrompt& prompt);

}  // namespace accelopt::workflows
