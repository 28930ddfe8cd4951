// Helpers shared by the llm tests.
#pragma once

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include "base/json.hpp"
#include "llm/client.hpp"
#include "tests/fakes/llm_server/fake_llm_server.hpp"

namespace accelopt::llm::testing {

// ACCELOPT_STRESS_SCALE (default 1).
inline int StressScale() {
  const char* s = std::getenv("ACCELOPT_STRESS_SCALE");
  int v = s ? std::atoi(s) : 1;
  return v < 1 ? 1 : v;
}

// A provider entry for `kind` pointing at the fake server, with fast retries.
inline json FakeProviderEntry(const fakes::FakeLlmServer& server, const std::string& kind) {
  json p = {{"kind", kind},
            {"max_concurrency", 8},
            {"timeouts", {{"connect_ms", 2000}, {"total_ms", 10000}, {"stall_ms", 2000}}},
            {"retry", {{"max_attempts", 4}, {"base_ms", 5}, {"cap_ms", 50}}},
            {"models", {{"m", {{"input_per_mtok", 1.0}, {"output_per_mtok", 2.0}, {"cached_input_per_mtok", 0.5}}}}}};
  if (kind == "openai") p["base_url"] = server.base_url() + "/v1";
  if (kind == "anthropic") {
    p["base_url"] = server.base_url();
    p["api_key_env"] = "ACCELOPT_TEST_ANTHROPIC_KEY";
  }
  if (kind == "bedrock") {
    p["base_url"] = server.base_url();
    p["region"] = "us-east-1";
  }
  return p;
}

inline std::unique_ptr<ProviderSet> MakeSet(const json& providers) {
  auto set = ProviderSet::Create(json{{"providers", providers}}, {});
  if (!set.ok()) throw std::runtime_error(set.status().ToString());
  return std::move(*set);
}

inline LlmRequest Req(const std::string& provider, const std::string& user = "Optimize this kernel.",
                      const std::string& system = "You are the planner.") {
  LlmRequest r;
  r.provider = provider;
  r.model = "m";
  r.system = system;
  r.user = user;
  r.max_tokens = 256;
  r.temperature = 0.5;
  return r;
}

inline double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace accelopt::llm::testing
