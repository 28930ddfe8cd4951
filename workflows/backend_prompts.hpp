// What the agents' prompts say about one backend: its real contract, written
// by us from what that backend's evaluator does (for cpu: docs/evaluation.md,
// evaluators/judge/cpp_rules.hpp, toolchain.hpp and the harness).
//
// A backend's set has
//   * intro       — what the kernel is, how it is built, run and timed;
//   * rules       — what is allowed and what is forbidden (the judge's
//                   actual rules, stated);
//   * compile     — the exact compile command ("" when the backend has none);
//   * correctness — the correctness contract of a problem (its tolerance,
//                   inputs, adversarial cases) from problem.json;
//   * hardware    — the hardware facts the runtime passed in (for cpu: the
//                   calibration JSON), as a short prose block with units;
//   * fields      — the profile fields the planner is shown, each with its
//                   glossary line (both modes show every field; paper mode
//                   adds `latency` in ms, docs/prompts.md, "Latency");
//   * planning    — the planner's guidance ("default" mode; "paper" mode
//                   gives the published template's six points instead,
//                   prompts.cpp, PaperPlanning);
//   * api_rule    — "paper" mode's fifth point, what the kernel may call,
//                   as this backend's real contract ("": the rules above);
//   * pitfalls    — the executor's pitfalls sheet.
// cpu, cuda, nki and triton have their own sets (prompts_cpu.hpp,
// prompts_cuda.hpp, prompts_nki.hpp, prompts_triton.hpp); the registry that
// picks one by backend name is prompt_backend.hpp, above them (each set
// includes this interface, not the registry); any other backend gets a
// generic set (no rules beyond the shared ones, hardware as a list of facts,
// every numeric profile field shown without a glossary) until it adds its
// own.
//
// Thread safety: the sets are immutable; the functions are pure.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.hpp"
#include "workflows/problem.hpp"

namespace accelopt::workflows {

struct ProfileField {
  std::string key;
  std::string meaning;  // one line, with the unit
};

struct BackendPrompts {
  std::string name;
  std::string intro;
  std::string rules;
  std::string compile;
  std::function<std::string(const json& problem)> correctness;
  std::function<std::string(const json& hardware)> hardware;
  std::vector<ProfileField> fields;  // empty: every numeric non-time field, no glossary
  std::string planning;
  std::string api_rule;
  std::string pitfalls;
  // What the executor's reply must define (markdown after "It must define:")
  // and the body of the problem's "How the kernel is called" section ("":
  // no such section). Unset: the problem's C declaration, fenced, for both.
  std::function<std::string(const ProblemInfo& problem)> must_define;
  std::function<std::string(const ProblemInfo& problem)> called_as;
};

// `code` in a fenced block of `lang` ("cpp", "python", "c").
std::string FenceCode(std::string_view code, const std::string& lang);

// Renders JSON facts as "- key: value" lines (nested objects indented).
std::string RenderFacts(const json& facts);

}  // namespace accelopt::workflows
