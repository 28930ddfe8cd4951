// The exact prompts one role would get for a problem, without a campaign or
// a model: what `accelopt-eval prompts` prints and what the golden snapshots
// under tests/workflows/golden/ hold.
//
// The planner's profile fields are shuffled with Rng(seed, "prompts/planner"),
// so their order differs from a campaign's (which keys the shuffle by its
// activity); everything else is what a campaign in that mode sends.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "workflows/problem.hpp"
#include "workflows/prompts.hpp"

namespace accelopt::workflows {

struct PromptPreview {
  ProblemSource source;            // problem.json, reference.cpp, baseline.cpp
  json hardware = json::object();  // the backend's facts (cpu: a calibration JSON)
  std::string kernel;              // the current kernel; empty: the baseline
  json profile = json::object();   // the current kernel's profile (an evaluation result's "profile")
  // Its measured latency (kPaper planners see it in ms); 0: flops /
  // achieved_gflops from the profile when both are there.
  double latency_us = 0;
  std::vector<MemoryItem> memory;         // shown to the planner ("No optimization found" items left out)
  Plan plan{"(the plan goes here)", ""};  // the executor's plan
  std::string slow, fast;                 // the summarizer's kernels; empty: the baseline / the kernel
  std::optional<double> speedup;          // the summarizer's speedup (kPaper never shows it)
  PromptMode mode = PromptMode::kDefault;
  uint64_t seed = 1;
};

// `role`: "planner", "executor" or "summarizer" (kInvalidArgument otherwise,
// or when the problem cannot be described).
Result<ChatPrompt> RenderRolePrompt(const std::string& role, const PromptPreview& in);

// "===== system =====\n<system>\n===== user =====\n<user>".
std::string FormatChatPrompt(const ChatPrompt& p);

}  // namespace accelopt::workflows
