#include "workflows/prompt_preview.hpp"

namespace accelopt::workflows {

Result<ChatPrompt> RenderRolePrompt(const std::string& role, const PromptPreview& in) {
  ACCELOPT_ASSIGN_OR_RETURN(ProblemInfo info, DescribeProblem(in.source));
  const std::string& kernel = in.kernel.empty() ? in.source.baseline : in.kernel;
  KernelContext ctx{info, in.hardware, in.source.reference, kernel, in.mode};
  if (role == "planner") {
    std::vector<MemoryItem> shown;
    for (const MemoryItem& m : in.memory) {
      if (!m.no_optimization) shown.push_back(m);
    }
    Rng rng(in.seed, "prompts/planner");
    double latency_us = in.latency_us;
    if (!(latency_us > 0) && in.profile.is_object() && in.profile.value("flops", 0.0) > 0 &&
        in.profile.value("achieved_gflops", 0.0) > 0) {
      latency_us = in.profile.value("flops", 0.0) / in.profile.value("achieved_gflops", 0.0) / 1e3;
    }
    const json profile = in.mode == PromptMode::kPaper ? WithPaperLatency(in.profile, latency_us) : in.profile;
    return PlannerPrompt(ctx, profile, shown, rng, in.mode == PromptMode::kDefault);
  }
  if (role == "executor") return ExecutorPrompt(ctx, in.plan);
  if (role == "summarizer") {
    const std::string& slow = in.slow.empty() ? in.source.baseline : in.slow;
    const std::string& fast = in.fast.empty() ? kernel : in.fast;
    return SummarizerPrompt(info, slow, fast, in.mode == PromptMode::kPaper ? std::nullopt : in.speedup, in.mode);
  }
  return InvalidArgument("role must be planner, executor or summarizer, not '" + role + "'");
}

std::string FormatChatPrompt(const ChatPrompt& p) {
  std::string out = "===== system =====\n" + p.system;
  if (out.back() != '\n') out += '\n';
  out += "===== user =====\n" + p.user;
  if (out.back() != '\n') out += '\n';
  return out;
}

}  // namespace accelopt::workflows
