// The fake LLM server's script: rules tried in order against each request.
// TEST TOOL ONLY — never shipped, never a provider.
//
//   {"role_markers": {"planner": "You are the planner"},     // optional
//    "rules": [
//      {"name": "plan-503", "match": {"role": "planner", "times": 2},
//       "fault": {"kind": "503"}},
//      {"name": "plan", "match": {"role": "planner"}, "latency_ms": 100,
//       "reply": {"text": "Fuse the loops.", "reasoning": "...",
//                 "input_tokens": 100, "output_tokens": 20, "cached_tokens": 0}},
//      {"name": "exec", "match": {"user_regex": "kernel\\s+code"},
//       "reply": {"text": "```cpp\n...\n```"}}]}
//
// match (all given conditions must hold; an empty match matches everything):
//   role            the system prompt contains role_markers[role], or the
//                   role name itself (case-insensitive) when no marker is set
//   system_contains / user_contains   substrings
//   system_regex / user_regex         ECMAScript regex, searched
//   model           exact model id;  api  "openai" | "anthropic" | "bedrock"
//   nth             only the nth request (1-based) meeting the conditions above
//   times           the rule serves at most this many requests, then is skipped
// reply: text, reasoning, finish_reason ("stop"), input_tokens / output_tokens
//   (default: bytes/4 + 1), cached_tokens (0).
// latency_ms: wait before answering (or before the fault).
// fault: "kind" or {"kind": ..., ...}:
//   "429" {retry_after_s?, retry_after_ms?}, "500", "503",
//   "status" {status, message?, retry_after_s?, body? (a JSON error body sent
//   as is, instead of the API's own error shape)}, "reset" (TCP RST after the
//   request is read), "stall" {stall_ms? (default: until the server stops)}
//   (headers and half the body, then silence), "invalid_json",
//   "missing_fields", "empty" (a reply with no text), "length" (text cut to
//   half, finish_reason length), "huge" {bytes? (default 4 MiB)}.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::fakes {

struct FakeReply {
  std::string text;
  std::string reasoning;
  std::string finish_reason = "stop";
  std::optional<int64_t> input_tokens;
  std::optional<int64_t> output_tokens;
  int64_t cached_tokens = 0;
};

struct FakeFault {
  std::string kind;  // empty: none
  int status = 0;
  std::string message;
  std::optional<int64_t> retry_after_s;
  std::optional<int64_t> retry_after_ms;
  std::optional<int64_t> stall_ms;
  int64_t bytes = 4 << 20;
  std::optional<json> body;  // "status": sent as the error body instead of the API's shape
};

struct FakeRule {
  std::string name;
  // match
  std::string role, system_contains, user_contains, model, api;
  std::optional<std::regex> system_regex, user_regex;
  std::optional<int> nth, times;
  // action
  int64_t latency_ms = 0;
  FakeReply reply;
  FakeFault fault;
};

// What the server parsed out of one request.
struct FakeCall {
  std::string api;  // openai | anthropic | bedrock
  std::string model, system, user;
};

class FakeScript {
 public:
  static Result<FakeScript> Parse(const json& j);

  // Index of the first rule that applies, updating the per-rule counters
  // (`seen` for nth, `served` for times); -1 when none does. Not
  // thread-safe: the server serializes calls.
  int Match(const FakeCall& call);

  const std::vector<FakeRule>& rules() const { return rules_; }
  void ResetCounters() {
    seen_.assign(rules_.size(), 0);
    served_.assign(rules_.size(), 0);
  }
  // Requests served by each rule so far.
  int served(int index) const { return served_[index]; }

 private:
  bool Applies(const FakeRule& r, const FakeCall& call) const;
  std::map<std::string, std::string> role_markers_;
  std::vector<FakeRule> rules_;
  std::vector<int> seen_, served_;
};

}  // namespace accelopt::fakes
