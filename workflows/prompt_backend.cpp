#include "workflows/prompt_backend.hpp"

#include <deque>

#include "base/named_rows.hpp"

#include "workflows/prompts_cpu.hpp"
#include "workflows/prompts_cuda.hpp"
#include "workflows/prompts_nki.hpp"
#include "workflows/prompts_triton.hpp"

namespace accelopt::workflows {

const BackendPrompts& GenericBackendPrompts() {
  static const BackendPrompts kGeneric = [] {
    BackendPrompts b;
    b.name = "generic";
    b.intro = "The kernel runs on the backend described by the hardware facts below.";
    b.rules =
        "Rules:\n"
        "- Never lower the numeric precision (no narrower types for data or accumulators, no approximate "
        "math that changes results beyond the tolerance).\n"
        "- Keep the function's name and signature exactly as given.\n"
        "- Do not cache results between calls, read timers, or special-case the inputs.\n";
    b.correctness = [](const json& p) {
      std::string out = "Correctness: every output must match a trusted double-precision reference";
      if (p.contains("tolerance") && p["tolerance"].is_number()) {
        out += " within a relative L2 error of " + Dump(p["tolerance"]);
      }
      return out + " for every input the problem allows.\n";
    };
    b.hardware = [](const json& facts) {
      return facts.is_object() && !facts.empty() ? RenderFacts(facts) : std::string("(none recorded)\n");
    };
    b.planning =
        "How to plan: start from the profile, find the inefficiency that costs the most in the current "
        "kernel, and prefer a plan that changes the kernel's structure over tuning a constant.\n";
    return b;
  }();
  return kGeneric;
}

namespace {

// A deque: the sets' addresses stay put when one is added.
std::deque<BackendPrompts>& Registered() {
  static std::deque<BackendPrompts> sets;
  return sets;
}

}  // namespace

const BackendPrompts* FindBackendPrompts(const std::string& backend) {
  // One row per built-in backend with a prompt set of its own, then the
  // registered sets.
  struct Row {
    const char* name;
    const BackendPrompts& (*prompts)();
  };
  static constexpr Row kRows[] = {
      {"cpu", &CpuPrompts},
      {"cuda", &CudaPrompts},
      {"nki", &NkiPrompts},
      {"triton", &TritonPrompts},
  };
  for (const BackendPrompts& set : Registered()) {
    if (set.name == backend) return &set;
  }
  for (const Row& row : kRows) {
    if (backend == row.name) return &row.prompts();
  }
  return nullptr;
}

const BackendPrompts& BackendPromptsFor(const std::string& backend) {
  const BackendPrompts* set = FindBackendPrompts(backend);
  return set ? *set : GenericBackendPrompts();
}

void RegisterBackendPrompts(BackendPrompts set) { PutRowByName(Registered(), std::move(set)); }

}  // namespace accelopt::workflows
